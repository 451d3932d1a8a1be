class error(Exception):
    # A lowercase exception class, as in the standard library's re.
    def __init__(self, msg, pattern=None, pos=None):
        if pattern is not None and pos is not None:
            msg = "%s at position %d" % (msg, pos)
        super().__init__(msg)
