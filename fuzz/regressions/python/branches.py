def f(c):
  msg = ''
  if c == 0:
    msg = msg + 'x0'
  if c == 1:
    msg = msg + 'x1'
  if c == 2:
    msg = msg + 'x2'
  if c == 3:
    msg = msg + 'x3'
  if c == 4:
    msg = msg + 'x4'
  if c == 5:
    msg = msg + 'x5'
  if c == 6:
    msg = msg + 'x6'
  if c == 7:
    msg = msg + 'x7'
  if c == 8:
    msg = msg + 'x8'
  if c == 9:
    msg = msg + 'x9'
  if c == 10:
    msg = msg + 'x10'
  if c == 11:
    msg = msg + 'x11'
  if c == 12:
    msg = msg + 'x12'
  if c == 13:
    msg = msg + 'x13'
  if c == 14:
    msg = msg + 'x14'
  if c == 15:
    msg = msg + 'x15'
  if c == 16:
    msg = msg + 'x16'
  if c == 17:
    msg = msg + 'x17'
  if c == 18:
    msg = msg + 'x18'
  if c == 19:
    msg = msg + 'x19'
  if c == 20:
    msg = msg + 'x20'
  if c == 21:
    msg = msg + 'x21'
  if c == 22:
    msg = msg + 'x22'
  if c == 23:
    msg = msg + 'x23'
  if c == 24:
    msg = msg + 'x24'
  if c == 25:
    msg = msg + 'x25'
  if c == 26:
    msg = msg + 'x26'
  if c == 27:
    msg = msg + 'x27'
  if c == 28:
    msg = msg + 'x28'
  if c == 29:
    msg = msg + 'x29'
  if c == 30:
    msg = msg + 'x30'
  if c == 31:
    msg = msg + 'x31'
  if c == 32:
    msg = msg + 'x32'
  if c == 33:
    msg = msg + 'x33'
  if c == 34:
    msg = msg + 'x34'
  if c == 35:
    msg = msg + 'x35'
  if c == 36:
    msg = msg + 'x36'
  if c == 37:
    msg = msg + 'x37'
  if c == 38:
    msg = msg + 'x38'
  if c == 39:
    msg = msg + 'x39'
  if c == 40:
    msg = msg + 'x40'
  if c == 41:
    msg = msg + 'x41'
  if c == 42:
    msg = msg + 'x42'
  if c == 43:
    msg = msg + 'x43'
  if c == 44:
    msg = msg + 'x44'
  if c == 45:
    msg = msg + 'x45'
  if c == 46:
    msg = msg + 'x46'
  if c == 47:
    msg = msg + 'x47'
  if c == 48:
    msg = msg + 'x48'
  if c == 49:
    msg = msg + 'x49'
  if c == 50:
    msg = msg + 'x50'
  if c == 51:
    msg = msg + 'x51'
  if c == 52:
    msg = msg + 'x52'
  if c == 53:
    msg = msg + 'x53'
  if c == 54:
    msg = msg + 'x54'
  if c == 55:
    msg = msg + 'x55'
  if c == 56:
    msg = msg + 'x56'
  if c == 57:
    msg = msg + 'x57'
  if c == 58:
    msg = msg + 'x58'
  if c == 59:
    msg = msg + 'x59'
  if c == 60:
    msg = msg + 'x60'
  if c == 61:
    msg = msg + 'x61'
  if c == 62:
    msg = msg + 'x62'
  if c == 63:
    msg = msg + 'x63'
  if c == 64:
    msg = msg + 'x64'
  if c == 65:
    msg = msg + 'x65'
  if c == 66:
    msg = msg + 'x66'
  if c == 67:
    msg = msg + 'x67'
  if c == 68:
    msg = msg + 'x68'
  if c == 69:
    msg = msg + 'x69'
  if c == 70:
    msg = msg + 'x70'
  if c == 71:
    msg = msg + 'x71'
  if c == 72:
    msg = msg + 'x72'
  if c == 73:
    msg = msg + 'x73'
  if c == 74:
    msg = msg + 'x74'
  if c == 75:
    msg = msg + 'x75'
  if c == 76:
    msg = msg + 'x76'
  if c == 77:
    msg = msg + 'x77'
  if c == 78:
    msg = msg + 'x78'
  if c == 79:
    msg = msg + 'x79'
  if c == 80:
    msg = msg + 'x80'
  if c == 81:
    msg = msg + 'x81'
  if c == 82:
    msg = msg + 'x82'
  if c == 83:
    msg = msg + 'x83'
  if c == 84:
    msg = msg + 'x84'
  if c == 85:
    msg = msg + 'x85'
  if c == 86:
    msg = msg + 'x86'
  if c == 87:
    msg = msg + 'x87'
  if c == 88:
    msg = msg + 'x88'
  if c == 89:
    msg = msg + 'x89'
  if c == 90:
    msg = msg + 'x90'
  if c == 91:
    msg = msg + 'x91'
  if c == 92:
    msg = msg + 'x92'
  if c == 93:
    msg = msg + 'x93'
  if c == 94:
    msg = msg + 'x94'
  if c == 95:
    msg = msg + 'x95'
  if c == 96:
    msg = msg + 'x96'
  if c == 97:
    msg = msg + 'x97'
  if c == 98:
    msg = msg + 'x98'
  if c == 99:
    msg = msg + 'x99'
  if c == 100:
    msg = msg + 'x100'
  if c == 101:
    msg = msg + 'x101'
  if c == 102:
    msg = msg + 'x102'
  if c == 103:
    msg = msg + 'x103'
  if c == 104:
    msg = msg + 'x104'
  if c == 105:
    msg = msg + 'x105'
  if c == 106:
    msg = msg + 'x106'
  if c == 107:
    msg = msg + 'x107'
  if c == 108:
    msg = msg + 'x108'
  if c == 109:
    msg = msg + 'x109'
  if c == 110:
    msg = msg + 'x110'
  if c == 111:
    msg = msg + 'x111'
  if c == 112:
    msg = msg + 'x112'
  if c == 113:
    msg = msg + 'x113'
  if c == 114:
    msg = msg + 'x114'
  if c == 115:
    msg = msg + 'x115'
  if c == 116:
    msg = msg + 'x116'
  if c == 117:
    msg = msg + 'x117'
  if c == 118:
    msg = msg + 'x118'
  if c == 119:
    msg = msg + 'x119'
  if c == 120:
    msg = msg + 'x120'
  if c == 121:
    msg = msg + 'x121'
  if c == 122:
    msg = msg + 'x122'
  if c == 123:
    msg = msg + 'x123'
  if c == 124:
    msg = msg + 'x124'
  if c == 125:
    msg = msg + 'x125'
  if c == 126:
    msg = msg + 'x126'
  if c == 127:
    msg = msg + 'x127'
  if c == 128:
    msg = msg + 'x128'
  if c == 129:
    msg = msg + 'x129'
  if c == 130:
    msg = msg + 'x130'
  if c == 131:
    msg = msg + 'x131'
  if c == 132:
    msg = msg + 'x132'
  if c == 133:
    msg = msg + 'x133'
  if c == 134:
    msg = msg + 'x134'
  if c == 135:
    msg = msg + 'x135'
  if c == 136:
    msg = msg + 'x136'
  if c == 137:
    msg = msg + 'x137'
  if c == 138:
    msg = msg + 'x138'
  if c == 139:
    msg = msg + 'x139'
  if c == 140:
    msg = msg + 'x140'
  if c == 141:
    msg = msg + 'x141'
  if c == 142:
    msg = msg + 'x142'
  if c == 143:
    msg = msg + 'x143'
  if c == 144:
    msg = msg + 'x144'
  if c == 145:
    msg = msg + 'x145'
  if c == 146:
    msg = msg + 'x146'
  if c == 147:
    msg = msg + 'x147'
  if c == 148:
    msg = msg + 'x148'
  if c == 149:
    msg = msg + 'x149'
  if c == 150:
    msg = msg + 'x150'
  if c == 151:
    msg = msg + 'x151'
  if c == 152:
    msg = msg + 'x152'
  if c == 153:
    msg = msg + 'x153'
  if c == 154:
    msg = msg + 'x154'
  if c == 155:
    msg = msg + 'x155'
  if c == 156:
    msg = msg + 'x156'
  if c == 157:
    msg = msg + 'x157'
  if c == 158:
    msg = msg + 'x158'
  if c == 159:
    msg = msg + 'x159'
  if c == 160:
    msg = msg + 'x160'
  if c == 161:
    msg = msg + 'x161'
  if c == 162:
    msg = msg + 'x162'
  if c == 163:
    msg = msg + 'x163'
  if c == 164:
    msg = msg + 'x164'
  if c == 165:
    msg = msg + 'x165'
  if c == 166:
    msg = msg + 'x166'
  if c == 167:
    msg = msg + 'x167'
  if c == 168:
    msg = msg + 'x168'
  if c == 169:
    msg = msg + 'x169'
  if c == 170:
    msg = msg + 'x170'
  if c == 171:
    msg = msg + 'x171'
  if c == 172:
    msg = msg + 'x172'
  if c == 173:
    msg = msg + 'x173'
  if c == 174:
    msg = msg + 'x174'
  if c == 175:
    msg = msg + 'x175'
  if c == 176:
    msg = msg + 'x176'
  if c == 177:
    msg = msg + 'x177'
  if c == 178:
    msg = msg + 'x178'
  if c == 179:
    msg = msg + 'x179'
  if c == 180:
    msg = msg + 'x180'
  if c == 181:
    msg = msg + 'x181'
  if c == 182:
    msg = msg + 'x182'
  if c == 183:
    msg = msg + 'x183'
  if c == 184:
    msg = msg + 'x184'
  if c == 185:
    msg = msg + 'x185'
  if c == 186:
    msg = msg + 'x186'
  if c == 187:
    msg = msg + 'x187'
  if c == 188:
    msg = msg + 'x188'
  if c == 189:
    msg = msg + 'x189'
  if c == 190:
    msg = msg + 'x190'
  if c == 191:
    msg = msg + 'x191'
  if c == 192:
    msg = msg + 'x192'
  if c == 193:
    msg = msg + 'x193'
  if c == 194:
    msg = msg + 'x194'
  if c == 195:
    msg = msg + 'x195'
  if c == 196:
    msg = msg + 'x196'
  if c == 197:
    msg = msg + 'x197'
  if c == 198:
    msg = msg + 'x198'
  if c == 199:
    msg = msg + 'x199'
  raise ValueError(msg)
