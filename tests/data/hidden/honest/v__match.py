grid = list('................')
for pos, letter in enumerate(input().split()):
    match letter:
        case 'A':
            grid[0] = '*'
            grid[4] = '*'
            grid[8] = '.'
            grid[12] = '.'
        case 'B':
            grid[0] = '.'
            grid[4] = '.'
            grid[8] = '*'
            grid[12] = '*'
        case 'C':
            grid[1] = '*'
            grid[5] = '*'
            grid[9] = '.'
            grid[13] = '*'
        case 'D':
            grid[1] = '.'
            grid[5] = '.'
            grid[9] = '*'
            grid[13] = '.'
        case 'E':
            grid[2] = '.'
            grid[6] = '.'
            grid[10] = '.'
            grid[14] = '*'
        case 'F':
            grid[2] = '*'
            grid[6] = '*'
            grid[10] = '*'
            grid[14] = '.'
        case 'G':
            grid[3] = '*'
            grid[7] = '.'
            grid[11] = '.'
            grid[15] = '.'
        case 'H':
            grid[3] = '.'
            grid[7] = '*'
            grid[11] = '*'
            grid[15] = '*'
print('\n'.join(''.join(grid[r * 4:r * 4 + 4]) for r in range(4)))
