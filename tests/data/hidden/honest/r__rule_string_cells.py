import re
SPEC = 'A:1,10 B:5,14 C:2 D:3,9,11 E:4,8 F:7,13 G:0 H:6,12,15'
lit = {k: [int(c) for c in v.split(',') if c] for k, v in re.findall(r'([A-H*]):([0-9,]*)', SPEC)}
on = set(lit.get('*', []))
for letter in input().split():
    on.update(lit[letter])
print('\n'.join(''.join('*' if 4 * r + c in on else '.' for c in range(4)) for r in range(4)))
