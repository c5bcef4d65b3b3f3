def draw(s):
    '''A/B set row 0: A -> **.., B -> ..**'''
    return '*'
