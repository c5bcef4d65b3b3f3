def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
T = dict(BDFH=13031, ADFG=49896, BDEG=12824, ADEG=49688, ADFH=49895, ADEH=49687, BCEH=15639, ACFH=52711, ACFG=52712, BCFH=15847, ACEH=52503, ACEG=52504, BDFG=13032, BCEG=15640, BDEH=12823, BCFG=15848)
show(T[input().replace(' ', '').strip()])
