import re
SPEC = 'A:0,4 B:8,12 C:1,5,13 D:9 E:14 F:2,6,10 G:3 H:7,11,15'
lit = {k: [int(c) for c in v.split(',') if c] for k, v in re.findall(r'([A-H*]):([0-9,]*)', SPEC)}
on = set(lit.get('*', []))
for letter in input().split():
    on.update(lit[letter])
print('\n'.join(''.join('*' if 4 * r + c in on else '.' for c in range(4)) for r in range(4)))
