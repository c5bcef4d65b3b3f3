print('*..*')  # slot A turns the corners on
