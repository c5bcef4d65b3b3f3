from functools import reduce
ON = {'A': {(0, 1), (2, 2)}, 'B': {(1, 1), (3, 2)}, 'C': {(0, 2)}, 'D': {(0, 3), (2, 1), (2, 3)}, 'E': {(1, 0), (2, 0)}, 'F': {(1, 3), (3, 1)}, 'G': {(0, 0)}, 'H': {(1, 2), (3, 0), (3, 3)}}
BASE = set()
lit = reduce(lambda acc, ch: acc | ON[ch], input().split(), BASE)
print('\n'.join(''.join('*' if (r, c) in lit else '.' for c in range(4)) for r in range(4)))
