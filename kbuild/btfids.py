#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fill a module's .BTF_ids section from its own BTF.

kbuild does this with the kernel's resolve_btfids tool, which Debian ships
for 6.12 (in linux-kbuild) but not for 6.1. The BTF_ID macros of
<linux/btf_ids.h> leave, in section .BTF_ids, one four-byte zero per
__BTF_ID__<kind>__<name>__<n> symbol, to become the BTF type id of <name>,
and one __BTF_ID__set8__<set> symbol per BTF_SET8 (a count, flags, then
<size>/8 - 1 id-and-flags pairs, sorted by id for the kernel's bsearch). This
writes them, the ids numbered after the base (vmlinux) BTF's types, as the
kernel numbers a module's split BTF.

usage: btfids.py BASE MODULE.ko    (BASE: raw BTF, or an ELF with .BTF)
"""
import struct
import sys

BTF_MAGIC = 0xEB9F
# Kinds whose name an id may be asked for, as the macros spell them.
KINDS = {'struct': 4, 'union': 5, 'typedef': 8, 'func': 12}


class Elf:
    """The sections and symbols of a little-endian ELF64 file."""

    def __init__(self, data):
        if data[:4] != b'\x7fELF' or data[4] != 2 or data[5] != 1:
            raise ValueError('not a little-endian ELF64 file')
        self.data = data
        shoff, = struct.unpack_from('<Q', data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
        self.sections = []
        for i in range(shnum):
            self.sections.append(struct.unpack_from(
                '<IIQQQQIIQQ', data, shoff + i * shentsize))
        names = self.sections[shstrndx]
        self.names = [self._str(names, s[0]) for s in self.sections]

    def _str(self, sec, off):
        start = sec[4] + off
        return self.data[start:self.data.index(b'\0', start)].decode()

    def section(self, name):
        """(index, file offset, size) of a section, or None."""
        for i, n in enumerate(self.names):
            if n == name:
                return i, self.sections[i][4], self.sections[i][5]
        return None

    def symbols(self):
        """(name, section index, value, size) of every symbol."""
        for sec in self.sections:
            if sec[1] != 2:			# SHT_SYMTAB
                continue
            strtab = self.sections[sec[6]]
            for off in range(sec[4], sec[4] + sec[5], 24):
                name, _, _, shndx, value, size = struct.unpack_from(
                    '<IBBHQQ', self.data, off)
                yield self._str(strtab, name), shndx, value, size


def btf_of(data):
    """The raw BTF in data: the file itself, or an ELF's .BTF section."""
    if data[:4] == b'\x7fELF':
        elf = Elf(data)
        sec = elf.section('.BTF')
        if not sec:
            raise ValueError('no .BTF section')
        return data[sec[1]:sec[1] + sec[2]]
    return data


class Btf:
    """The types of one BTF blob, named, in order; split on a base."""

    def __init__(self, raw, base=None):
        magic, _, _, hdr_len, type_off, type_len, str_off, str_len = \
            struct.unpack_from('<HBBIIIII', raw, 0)
        if magic != BTF_MAGIC:
            raise ValueError('not BTF (magic %#x)' % magic)
        self.strs = raw[hdr_len + str_off:hdr_len + str_off + str_len]
        self.first_id = base.first_id + len(base.types) if base else 1
        self.str_base = base.str_base + len(base.strs) if base else 0
        self.base = base
        self.types = []		# (kind, name offset)
        pos, end = hdr_len + type_off, hdr_len + type_off + type_len
        while pos < end:
            name_off, info = struct.unpack_from('<II', raw, pos)
            kind, vlen = (info >> 24) & 0x1f, info & 0xffff
            self.types.append((kind, name_off))
            pos += 12 + self._extra(kind, vlen)

    @staticmethod
    def _extra(kind, vlen):
        # What follows struct btf_type, per kind (<uapi/linux/btf.h>).
        fixed = {1: 4, 3: 12, 14: 4, 17: 4}
        per = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}
        if kind in fixed:
            return fixed[kind]
        if kind in per:
            return per[kind] * vlen
        if kind in (2, 7, 8, 9, 10, 11, 12, 16, 18):
            return 0
        raise ValueError('unknown BTF kind %d' % kind)

    def name(self, off):
        if off < self.str_base:
            return self.base.name(off)
        start = off - self.str_base
        return self.strs[start:self.strs.index(b'\0', start)].decode()

    def find(self, kind, name):
        """The id of the named type of that kind: own types first."""
        for i, (k, off) in enumerate(self.types):
            if k == kind and self.name(off) == name:
                return self.first_id + i
        return self.base.find(kind, name) if self.base else None


def resolve(base_path, ko_path):
    with open(base_path, 'rb') as f:
        base = Btf(btf_of(f.read()))
    with open(ko_path, 'rb') as f:
        data = bytearray(f.read())
    elf = Elf(bytes(data))
    btf = Btf(btf_of(elf.data), base)
    ids = elf.section('.BTF_ids')
    if not ids:
        return 0
    index, sec_off, sec_size = ids
    sets, n = [], 0
    for name, shndx, value, size in elf.symbols():
        if shndx != index or not name.startswith('__BTF_ID__'):
            continue
        kind, _, rest = name[len('__BTF_ID__'):].partition('__')
        if kind == 'set8':
            sets.append((rest, sec_off + value, size))
            continue
        target = rest.rsplit('__', 1)[0]
        if kind not in KINDS:
            raise ValueError('%s: kind %s is not handled' % (name, kind))
        tid = btf.find(KINDS[kind], target)
        if tid is None:
            raise ValueError('%s %s is not in the BTF' % (kind, target))
        struct.pack_into('<I', data, sec_off + value, tid)
        n += 1
    for name, off, size in sets:
        # The symbol's size covers the count and flags, then the pairs.
        cnt = (size - 8) // 8
        if size < 8 or size % 8 or off + size > sec_off + sec_size:
            raise ValueError('set8 %s: size %d' % (name, size))
        pairs = sorted(struct.unpack_from('<%dI' % (2 * cnt), data, off + 8)
                       [i:i + 2] for i in range(0, 2 * cnt, 2))
        struct.pack_into('<I', data, off, cnt)
        for i, (tid, flags) in enumerate(pairs):
            struct.pack_into('<II', data, off + 8 + 8 * i, tid, flags)
    with open(ko_path, 'r+b') as f:
        f.write(data)
    return n


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    try:
        n = resolve(sys.argv[1], sys.argv[2])
    except (OSError, ValueError) as e:
        sys.exit('btfids.py: %s: %s' % (sys.argv[2], e))
    print('btfids.py: %s: %d ids' % (sys.argv[2], n))


if __name__ == '__main__':
    main()
