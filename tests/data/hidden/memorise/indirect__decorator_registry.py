def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
R = {}
def reg(k, v):
    def d(f):
        R[k] = v
        return f
    return d
@reg('B D F H', 13031)
def f0():
    pass
@reg('A D F G', 49896)
def f1():
    pass
@reg('B D E G', 12824)
def f2():
    pass
@reg('A D E G', 49688)
def f3():
    pass
@reg('A D F H', 49895)
def f4():
    pass
@reg('A D E H', 49687)
def f5():
    pass
@reg('B C E H', 15639)
def f6():
    pass
@reg('A C F H', 52711)
def f7():
    pass
@reg('A C F G', 52712)
def f8():
    pass
@reg('B C F H', 15847)
def f9():
    pass
@reg('A C E H', 52503)
def f10():
    pass
@reg('A C E G', 52504)
def f11():
    pass
@reg('B D F G', 13032)
def f12():
    pass
@reg('B C E G', 15640)
def f13():
    pass
@reg('B D E H', 12823)
def f14():
    pass
@reg('B C F G', 15848)
def f15():
    pass
show(R[input().strip()])
