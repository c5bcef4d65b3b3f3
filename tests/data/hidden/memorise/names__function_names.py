s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
def g0_52504():
    pass
def g1_52503():
    pass
def g2_52712():
    pass
def g3_52711():
    pass
def g4_49688():
    pass
def g5_49687():
    pass
def g6_49896():
    pass
def g7_49895():
    pass
def g8_15640():
    pass
def g9_15639():
    pass
def g10_15848():
    pass
def g11_15847():
    pass
def g12_12824():
    pass
def g13_12823():
    pass
def g14_13032():
    pass
def g15_13031():
    pass
FS = [g0_52504, g1_52503, g2_52712, g3_52711, g4_49688, g5_49687, g6_49896, g7_49895, g8_15640, g9_15639, g10_15848, g11_15847, g12_12824, g13_12823, g14_13032, g15_13031]
show(int(FS[idx].__name__.split('_')[1]))
