s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
def k0_52504():
    pass
def k1_52503():
    pass
def k2_52712():
    pass
def k3_52711():
    pass
def k4_49688():
    pass
def k5_49687():
    pass
def k6_49896():
    pass
def k7_49895():
    pass
def k8_15640():
    pass
def k9_15639():
    pass
def k10_15848():
    pass
def k11_15847():
    pass
def k12_12824():
    pass
def k13_12823():
    pass
def k14_13032():
    pass
def k15_13031():
    pass
N = sorted((n for n in globals() if n.startswith('k')), key=lambda n: int(n[1:].split('_')[0]))
show(int(N[idx].split('_')[1]))
