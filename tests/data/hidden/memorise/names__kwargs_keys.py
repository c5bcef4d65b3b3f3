s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
def reg(**kw):
    return kw
T = reg(k0_52504=None, k1_52503=None, k2_52712=None, k3_52711=None, k4_49688=None, k5_49687=None, k6_49896=None, k7_49895=None, k8_15640=None, k9_15639=None, k10_15848=None, k11_15847=None, k12_12824=None, k13_12823=None, k14_13032=None, k15_13031=None)
N = list(T)
show(int(N[idx].split('_')[1]))
