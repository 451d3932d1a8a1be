a = b
b = a
raise ValueError(a)
def f():
  msg = msg
  raise ValueError(msg)
