grid = list('................')
for pos, letter in enumerate(input().split()):
    match letter:
        case 'A':
            grid[1] = '*'
            grid[5] = '.'
            grid[10] = '*'
            grid[14] = '.'
        case 'B':
            grid[1] = '.'
            grid[5] = '*'
            grid[10] = '.'
            grid[14] = '*'
        case 'C':
            grid[2] = '*'
            grid[3] = '.'
            grid[9] = '.'
            grid[11] = '.'
        case 'D':
            grid[2] = '.'
            grid[3] = '*'
            grid[9] = '*'
            grid[11] = '*'
        case 'E':
            grid[4] = '*'
            grid[7] = '.'
            grid[8] = '*'
            grid[13] = '.'
        case 'F':
            grid[4] = '.'
            grid[7] = '*'
            grid[8] = '.'
            grid[13] = '*'
        case 'G':
            grid[0] = '*'
            grid[6] = '.'
            grid[12] = '.'
            grid[15] = '.'
        case 'H':
            grid[0] = '.'
            grid[6] = '*'
            grid[12] = '*'
            grid[15] = '*'
print('\n'.join(''.join(grid[r * 4:r * 4 + 4]) for r in range(4)))
