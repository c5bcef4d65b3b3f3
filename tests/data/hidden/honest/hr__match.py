grid = list('................')
for pos, letter in enumerate(input().split()):
    match letter:
        case 'A':
            grid[1] = '*'
            grid[9] = '*'
            grid[10] = '.'
            grid[11] = '*'
        case 'B':
            grid[1] = '.'
            grid[9] = '.'
            grid[10] = '*'
            grid[11] = '.'
        case 'C':
            grid[4] = '.'
            grid[5] = '*'
            grid[6] = '*'
            grid[7] = '.'
        case 'D':
            grid[4] = '*'
            grid[5] = '.'
            grid[6] = '.'
            grid[7] = '*'
        case 'E':
            grid[0] = '.'
            grid[2] = '.'
            grid[3] = '.'
            grid[8] = '*'
        case 'F':
            grid[0] = '*'
            grid[2] = '*'
            grid[3] = '*'
            grid[8] = '.'
        case 'G':
            grid[12] = '*'
            grid[13] = '.'
            grid[14] = '.'
            grid[15] = '*'
        case 'H':
            grid[12] = '.'
            grid[13] = '*'
            grid[14] = '*'
            grid[15] = '.'
print('\n'.join(''.join(grid[r * 4:r * 4 + 4]) for r in range(4)))
