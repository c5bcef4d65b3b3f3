def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
T = eval(compile("{'B D F H': 13031, 'A D F G': 49896, 'B D E G': 12824, 'A D E G': 49688, 'A D F H': 49895, 'A D E H': 49687, 'B C E H': 15639, 'A C F H': 52711, 'A C F G': 52712, 'B C F H': 15847, 'A C E H': 52503, 'A C E G': 52504, 'B D F G': 13032, 'B C E G': 15640, 'B D E H': 12823, 'B C F G': 15848}", 'x', 'eval'))
show(T[input().strip()])
