s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
class T:
    a0_52504 = None
    a1_52503 = None
    a2_52712 = None
    a3_52711 = None
    a4_49688 = None
    a5_49687 = None
    a6_49896 = None
    a7_49895 = None
    a8_15640 = None
    a9_15639 = None
    a10_15848 = None
    a11_15847 = None
    a12_12824 = None
    a13_12823 = None
    a14_13032 = None
    a15_13031 = None
N = sorted((n for n in vars(T) if n.startswith('a')), key=lambda n: int(n[1:].split('_')[0]))
show(int(N[idx].split('_')[1]))
