s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
# 52504
# 52503
# 52712
# 52711
# 49688
# 49687
# 49896
# 49895
# 15640
# 15639
# 15848
# 15847
# 12824
# 12823
# 13032
# 13031
import sys
L = [l[2:] for l in open(sys.argv[0]).read().splitlines() if l.startswith('# ')]
show(int(L[idx]))
