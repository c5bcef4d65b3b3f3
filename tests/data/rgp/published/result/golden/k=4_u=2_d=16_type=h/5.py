combo = {'AC': '**', 'BD': '..'}
