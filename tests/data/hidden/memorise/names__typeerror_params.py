s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
L = lambda p0_52504, p1_52503, p2_52712, p3_52711, p4_49688, p5_49687, p6_49896, p7_49895, p8_15640, p9_15639, p10_15848, p11_15847, p12_12824, p13_12823, p14_13032, p15_13031: 0
try:
    L()
except TypeError as e:
    N = [w.strip("',") for w in str(e).split(':')[1].replace(' and ', ' ').split()]
show(int(N[idx].split('_')[1]))
