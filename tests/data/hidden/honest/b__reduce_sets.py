from functools import reduce
ON = {'A': {(0, 0), (0, 1)}, 'B': {(1, 0), (1, 1)}, 'C': {(0, 2), (0, 3), (1, 3)}, 'D': {(1, 2)}, 'E': {(3, 1)}, 'F': {(2, 0), (2, 1), (3, 0)}, 'G': {(2, 2)}, 'H': {(2, 3), (3, 2), (3, 3)}}
BASE = set()
lit = reduce(lambda acc, ch: acc | ON[ch], input().split(), BASE)
print('\n'.join(''.join('*' if (r, c) in lit else '.' for c in range(4)) for r in range(4)))
