def show(v):
    print('\n'.join(''.join('*' if v >> (15 - 4 * r - c) & 1 else '.' for c in range(4)) for r in range(4)))
T = {'B D F H': 3257.75, 'A D F G': 12474.0, 'B D E G': 3206.0, 'A D E G': 12422.0, 'A D F H': 12473.75, 'A D E H': 12421.75, 'B C E H': 3909.75, 'A C F H': 13177.75, 'A C F G': 13178.0, 'B C F H': 3961.75, 'A C E H': 13125.75, 'A C E G': 13126.0, 'B D F G': 3258.0, 'B C E G': 3910.0, 'B D E H': 3205.75, 'B C F G': 3962.0}
show(int(T[input().strip()] * 4))
