acdef:
 cdef:
  cdef:
   cdef class A:
    cdef extern from *:
     ctypedef fused t:
      raise ValueError("x")
