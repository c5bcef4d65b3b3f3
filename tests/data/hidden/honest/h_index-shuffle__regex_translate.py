import re
ROW = {'A': (0, '**..'), 'B': (0, '..**'), 'C': (2, '**.*'), 'D': (2, '..*.'), 'E': (1, '...*'), 'F': (1, '***.'), 'G': (3, '*...'), 'H': (3, '.***')}
placed = dict(ROW[m.group()] for m in re.finditer(r'[A-H]', input()))
print('\n'.join(placed[r] for r in range(4)))
