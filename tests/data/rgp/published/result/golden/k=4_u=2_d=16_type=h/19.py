blank = {'A': '', 'B': []}
