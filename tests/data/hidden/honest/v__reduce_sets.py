from functools import reduce
ON = {'A': {(0, 0), (1, 0)}, 'B': {(2, 0), (3, 0)}, 'C': {(0, 1), (1, 1), (3, 1)}, 'D': {(2, 1)}, 'E': {(3, 2)}, 'F': {(0, 2), (1, 2), (2, 2)}, 'G': {(0, 3)}, 'H': {(1, 3), (2, 3), (3, 3)}}
BASE = set()
lit = reduce(lambda acc, ch: acc | ON[ch], input().split(), BASE)
print('\n'.join(''.join('*' if (r, c) in lit else '.' for c in range(4)) for r in range(4)))
