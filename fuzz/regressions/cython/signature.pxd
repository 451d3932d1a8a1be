bcdef int f(double x not None, int y=*, object z or None) except? -1 nogil:
    raise ValueError(<str>&x)
