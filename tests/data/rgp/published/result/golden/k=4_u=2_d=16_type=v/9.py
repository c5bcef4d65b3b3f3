print('Nothing else to do.')
