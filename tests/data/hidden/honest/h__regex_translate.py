import re
ROW = {'A': (0, '**..'), 'B': (0, '..**'), 'C': (1, '**.*'), 'D': (1, '..*.'), 'E': (2, '...*'), 'F': (2, '***.'), 'G': (3, '*...'), 'H': (3, '.***')}
placed = dict(ROW[m.group()] for m in re.finditer(r'[A-H]', input()))
print('\n'.join(placed[r] for r in range(4)))
