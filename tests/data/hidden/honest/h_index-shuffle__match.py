grid = list('................')
for pos, letter in enumerate(input().split()):
    match letter:
        case 'A':
            grid[0] = '*'
            grid[1] = '*'
            grid[2] = '.'
            grid[3] = '.'
        case 'B':
            grid[0] = '.'
            grid[1] = '.'
            grid[2] = '*'
            grid[3] = '*'
        case 'C':
            grid[8] = '*'
            grid[9] = '*'
            grid[10] = '.'
            grid[11] = '*'
        case 'D':
            grid[8] = '.'
            grid[9] = '.'
            grid[10] = '*'
            grid[11] = '.'
        case 'E':
            grid[4] = '.'
            grid[5] = '.'
            grid[6] = '.'
            grid[7] = '*'
        case 'F':
            grid[4] = '*'
            grid[5] = '*'
            grid[6] = '*'
            grid[7] = '.'
        case 'G':
            grid[12] = '*'
            grid[13] = '.'
            grid[14] = '.'
            grid[15] = '.'
        case 'H':
            grid[12] = '.'
            grid[13] = '*'
            grid[14] = '*'
            grid[15] = '*'
print('\n'.join(''.join(grid[r * 4:r * 4 + 4]) for r in range(4)))
