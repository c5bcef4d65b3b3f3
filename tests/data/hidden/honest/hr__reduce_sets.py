from functools import reduce
ON = {'A': {(0, 1), (2, 1), (2, 3)}, 'B': {(2, 2)}, 'C': {(1, 1), (1, 2)}, 'D': {(1, 0), (1, 3)}, 'E': {(2, 0)}, 'F': {(0, 0), (0, 2), (0, 3)}, 'G': {(3, 0), (3, 3)}, 'H': {(3, 1), (3, 2)}}
BASE = set()
lit = reduce(lambda acc, ch: acc | ON[ch], input().split(), BASE)
print('\n'.join(''.join('*' if (r, c) in lit else '.' for c in range(4)) for r in range(4)))
