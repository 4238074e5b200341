package fileio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// verifyIPCFooter checks the flatbuffer footer of an Arrow IPC file before
// Arrow reads it. Arrow v17 trusts the footer's vector lengths and sizes
// slices by them, so a corrupt length becomes an allocation of terabytes —
// a fatal out-of-memory no recover can catch. Here every vector, string and
// table the schema part of the footer points at must lie inside the footer.
func verifyIPCFooter(fh *os.File, size int64) error {
	const tail = 10 // int32 footer length + "ARROW1"
	if size < 6+2+tail {
		return fmt.Errorf("file too small (%d bytes) for the Arrow IPC file format", size)
	}
	var end [tail]byte
	if _, err := fh.ReadAt(end[:], size-tail); err != nil {
		return err
	}
	if string(end[4:]) != "ARROW1" {
		return errors.New("not an Arrow IPC file (no ARROW1 trailer)")
	}
	flen := int64(binary.LittleEndian.Uint32(end[:4]))
	if flen <= 0 || flen > size-tail-8 {
		return fmt.Errorf("footer length %d does not fit the file", flen)
	}
	buf := make([]byte, flen)
	if _, err := fh.ReadAt(buf, size-tail-flen); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	fb := flatbuf{b: buf}
	footer, err := fb.root()
	if err != nil {
		return err
	}
	// Footer: 0 version, 1 schema, 2 dictionaries, 3 recordBatches (Block
	// structs of 24 bytes).
	for _, slot := range []int{2, 3} {
		if _, _, err := fb.vector(footer, slot, 24); err != nil {
			return err
		}
	}
	schema, ok, err := fb.table(footer, 1)
	if err != nil || !ok {
		return errors.Join(errors.New("footer has no schema"), err)
	}
	// Schema: 0 endianness, 1 fields, 2 custom_metadata, 3 features (int64).
	if _, _, err := fb.vector(schema, 3, 8); err != nil {
		return err
	}
	if err := fb.keyValues(schema, 2); err != nil {
		return err
	}
	return fb.fields(schema, 1, 0)
}

// flatbuf walks a flatbuffer with bounds checks on every offset.
type flatbuf struct{ b []byte }

var errFlatbuf = errors.New("corrupt Arrow IPC footer")

func (f flatbuf) u32(pos int64) (int64, error) {
	if pos < 0 || pos+4 > int64(len(f.b)) {
		return 0, errFlatbuf
	}
	return int64(binary.LittleEndian.Uint32(f.b[pos:])), nil
}

func (f flatbuf) root() (int64, error) {
	off, err := f.u32(0)
	if err != nil {
		return 0, err
	}
	return off, f.checkTable(off)
}

func (f flatbuf) checkTable(t int64) error {
	if _, err := f.u32(t); err != nil {
		return err
	}
	vt := t - int64(int32(binary.LittleEndian.Uint32(f.b[t:])))
	if vt < 0 || vt+4 > int64(len(f.b)) {
		return errFlatbuf
	}
	vlen := int64(binary.LittleEndian.Uint16(f.b[vt:]))
	if vlen < 4 || vt+vlen > int64(len(f.b)) {
		return errFlatbuf
	}
	return nil
}

// slot is the position of field slot of table t, or 0 when absent.
func (f flatbuf) slot(t int64, slot int) int64 {
	vt := t - int64(int32(binary.LittleEndian.Uint32(f.b[t:])))
	vlen := int64(binary.LittleEndian.Uint16(f.b[vt:]))
	e := 4 + 2*int64(slot)
	if e+2 > vlen {
		return 0
	}
	o := int64(binary.LittleEndian.Uint16(f.b[vt+e:]))
	if o == 0 {
		return 0
	}
	return t + o
}

// ref follows the uoffset stored in slot of table t.
func (f flatbuf) ref(t int64, slot int) (int64, bool, error) {
	p := f.slot(t, slot)
	if p == 0 {
		return 0, false, nil
	}
	off, err := f.u32(p)
	if err != nil {
		return 0, false, err
	}
	return p + off, true, nil
}

func (f flatbuf) table(t int64, slot int) (int64, bool, error) {
	p, ok, err := f.ref(t, slot)
	if err != nil || !ok {
		return 0, ok, err
	}
	return p, true, f.checkTable(p)
}

// vector checks the vector in slot of table t (elements of elem bytes) and
// returns where its elements start and how many there are.
func (f flatbuf) vector(t int64, slot int, elem int64) (int64, int64, error) {
	p, ok, err := f.ref(t, slot)
	if err != nil || !ok {
		return 0, 0, err
	}
	n, err := f.u32(p)
	if err != nil {
		return 0, 0, err
	}
	if n*elem > int64(len(f.b))-p-4 {
		return 0, 0, errFlatbuf
	}
	return p + 4, n, nil
}

// tables checks a vector of tables and calls fn on each.
func (f flatbuf) tables(t int64, slot int, fn func(int64) error) error {
	start, n, err := f.vector(t, slot, 4)
	if err != nil {
		return err
	}
	for i := int64(0); i < n; i++ {
		p := start + 4*i
		off, err := f.u32(p)
		if err != nil {
			return err
		}
		if err := f.checkTable(p + off); err != nil {
			return err
		}
		if err := fn(p + off); err != nil {
			return err
		}
	}
	return nil
}

func (f flatbuf) keyValues(t int64, slot int) error {
	return f.tables(t, slot, func(kv int64) error {
		for _, s := range []int{0, 1} {
			if _, _, err := f.vector(kv, s, 1); err != nil {
				return err
			}
		}
		return nil
	})
}

// fields checks a vector of Field tables: 0 name, 1 nullable, 2 type_type,
// 3 type, 4 dictionary, 5 children, 6 custom_metadata.
func (f flatbuf) fields(t int64, slot int, depth int) error {
	if depth > 256 {
		return errFlatbuf
	}
	return f.tables(t, slot, func(fd int64) error {
		if _, _, err := f.vector(fd, 0, 1); err != nil {
			return err
		}
		for _, s := range []int{3, 4} {
			if _, _, err := f.table(fd, s); err != nil {
				return err
			}
		}
		if err := f.keyValues(fd, 6); err != nil {
			return err
		}
		return f.fields(fd, 5, depth+1)
	})
}
