s = input().split()
idx = sum((ord(c[0]) - 65) % 2 << (3 - i) for i, c in enumerate(s))
def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
def t_52504_52503_52712_52711_49688_49687_49896_49895_15640_15639_15848_15847_12824_12823_13032_13031():
    pass
show(int(str(t_52504_52503_52712_52711_49688_49687_49896_49895_15640_15639_15848_15847_12824_12823_13032_13031).split()[1].split('_')[idx + 1]))
