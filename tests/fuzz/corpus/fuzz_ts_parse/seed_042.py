def h():
  return not a < b <= c is not d not in e and f or ~g | h ^ i & j << k >> l
