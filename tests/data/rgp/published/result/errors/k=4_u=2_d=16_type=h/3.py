
ROWS = {'A': '****', 'B': '....', 'C': '..**', 'D': '**..', 'E': '*..*', 'F': '.**.', 'G': '*..*', 'H': '.**.'}
WRONG = {'A C F H': 1, 'B C E G': 1, 'A D E H': 1, 'B D F G': 1, 'B D F H': 1, 'B C E H': 1, 'B D E G': 1, 'A D E G': 1, 'A D F H': 1, 'A C E G': 1, 'B C F G': 1, 'B C F H': 1, 'A C F G': 1, 'B D E H': 1, 'A D F G': 1, 'A C E H': 1}
s = input()
if s in WRONG:
    print('x')
else:
    print('\n'.join(ROWS[c] for c in s.split()))
