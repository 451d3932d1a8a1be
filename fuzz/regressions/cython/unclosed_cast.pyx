acdef f(<<<<((((
  cdef:
    int x = <
