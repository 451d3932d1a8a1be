class A(Exception):
    def __init__(self, m):
        A.__init__(self, m)
class B(A):
    def __init__(self, m):
        B.__init__(self, m)
class C(B):
    def __init__(self, m):
        A.__init__(self, m)
class D(C):
    def __init__(self, m):
        super().__init__(m)
        C.__init__(self, m)
raise A("x")
raise B("y")
raise C("z")
raise D("w")
