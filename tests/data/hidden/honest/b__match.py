grid = list('................')
for pos, letter in enumerate(input().split()):
    match letter:
        case 'A':
            grid[0] = '*'
            grid[1] = '*'
            grid[4] = '.'
            grid[5] = '.'
        case 'B':
            grid[0] = '.'
            grid[1] = '.'
            grid[4] = '*'
            grid[5] = '*'
        case 'C':
            grid[2] = '*'
            grid[3] = '*'
            grid[6] = '.'
            grid[7] = '*'
        case 'D':
            grid[2] = '.'
            grid[3] = '.'
            grid[6] = '*'
            grid[7] = '.'
        case 'E':
            grid[8] = '.'
            grid[9] = '.'
            grid[12] = '.'
            grid[13] = '*'
        case 'F':
            grid[8] = '*'
            grid[9] = '*'
            grid[12] = '*'
            grid[13] = '.'
        case 'G':
            grid[10] = '*'
            grid[11] = '.'
            grid[14] = '.'
            grid[15] = '.'
        case 'H':
            grid[10] = '.'
            grid[11] = '*'
            grid[14] = '*'
            grid[15] = '*'
print('\n'.join(''.join(grid[r * 4:r * 4 + 4]) for r in range(4)))
