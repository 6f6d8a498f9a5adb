def s():
  return "\x41\101\u00e9\n" 'b' '''c
d''' -9223372036854775808 + inf - nan
