
ROWS = {'A': '**..', 'B': '..**', 'C': '**.*', 'D': '..*.', 'E': '...*', 'F': '***.', 'G': '*...', 'H': '.***'}
WRONG = {}
s = input()
if s in WRONG:
    print('x')
else:
    print('\n'.join(ROWS[c] for c in s.split()))
