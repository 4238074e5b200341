// Package atomicfile is the one way Sluice writes files: a reader sees the
// old content or the new, never a part, and a failure (an error, a panic in
// the writer, a cancelled run) leaves the target as it was and no temporary
// file behind. The new content goes to a synced temporary name beside the
// target and is renamed into place (see docs/development.md#file-writes).
//
//	err := atomicfile.WriteBytes("catalog/yt/videos.state.json", data)
//
// Several outputs that must appear together are staged first and committed
// all or none:
//
//	a, err := atomicfile.Stage("out/a.parquet", writeA)
//	b, err := atomicfile.Stage("out/b.parquet", writeB)
//	err = atomicfile.CommitAll(a, b)
package atomicfile

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Staged is complete new content under a hidden temporary name beside its
// target, waiting for Commit (rename into place) or Abort (removal).
type Staged struct {
	path string // the target
	tmp  string // the temporary name; "" once committed or aborted
	dir  bool   // a directory rather than a file
	size int64  // bytes staged (of all files, for a directory)
}

// Size is the number of bytes staged: the file's size, or the total of the
// files of a staged directory.
func (s *Staged) Size() int64 { return s.size }

// Path is the target the staged content is for.
func (s *Staged) Path() string { return s.path }

// Stage runs write against a buffered temporary file beside path and
// flushes, syncs and closes it. On any failure, and on a panic inside
// write (Arrow's writers can panic), the temporary file is removed and
// the error names path, never the temporary name. The parent of path must
// exist.
func Stage(path string, write func(w io.Writer) error) (s *Staged, err error) {
	return stage(path, 0o644, write)
}

// StagePerm is Stage for a file with permissions perm (0o600: readable by
// its owner only, for content that holds a secret).
func StagePerm(path string, perm fs.FileMode, write func(w io.Writer) error) (*Staged, error) {
	return stage(path, perm, write)
}

func stage(path string, perm fs.FileMode, write func(w io.Writer) error) (s *Staged, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// The temporary name keeps path's extension (.out.csv.tmp-123.csv):
	// writers that pick a format by the name pick the same one.
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*"+filepath.Ext(base))
	if err != nil {
		return nil, hideTemp(path, "", err)
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("writing %s: %v", path, v)
		}
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = hideTemp(path, tmp.Name(), err)
			s = nil
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	// bw hides the file's Close from write: the file stays open to be synced.
	if err = write(bw); err != nil {
		return nil, err
	}
	if err = bw.Flush(); err != nil {
		return nil, err
	}
	if err = tmp.Chmod(perm); err != nil {
		return nil, err
	}
	if err = tmp.Sync(); err != nil {
		return nil, err
	}
	fi, err := tmp.Stat()
	if err != nil {
		return nil, err
	}
	if err = tmp.Close(); err != nil {
		return nil, err
	}
	return &Staged{path: path, tmp: tmp.Name(), size: fi.Size()}, nil
}

// StageAt is Stage for content written by name: write gets a fresh hidden
// temporary name beside path (keeping its extension) and creates there a
// file or a whole directory (such as a directory of Parquet part files).
// On failure or panic whatever write left is removed and the error names
// path instead of the temporary name.
func StageAt(path string, write func(tmp string) error) (s *Staged, err error) {
	ext := filepath.Ext(path)
	tmp := tempName(path, "tmp") + ext
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("writing %s: %v", path, v)
		}
		if err != nil {
			_ = os.RemoveAll(tmp)
			err = hideTemp(path, tmp, err)
			s = nil
		}
	}()
	if err = write(tmp); err != nil {
		return nil, err
	}
	fi, err := os.Stat(tmp)
	if err != nil {
		return nil, err
	}
	s = &Staged{path: path, tmp: tmp, dir: fi.IsDir(), size: fi.Size()}
	if s.dir {
		s.size = 0
		err = filepath.WalkDir(tmp, func(_ string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			info, err := d.Info()
			if err == nil {
				s.size += info.Size()
			}
			return err
		})
	}
	return s, err
}

// Commit renames the staged content into place and syncs the directory.
// On failure the target is as it was and the temporary content is gone.
func (s *Staged) Commit() error { return CommitAll(s) }

// Abort removes the staged content; the target is untouched. It does
// nothing once the content was committed or aborted.
func (s *Staged) Abort() {
	if s != nil && s.tmp != "" {
		_ = os.RemoveAll(s.tmp)
		s.tmp = ""
	}
}

// CommitAll renames every staged content into place, in order, all or
// none: when one rename fails, the targets already replaced get their
// previous content back (or are removed if they did not exist), every
// staged content left is removed, and the error names the target that
// failed. A replaced file stays readable throughout: its old content is
// kept by a hard link until all renames succeeded.
func CommitAll(staged ...*Staged) error {
	type done struct {
		s   *Staged
		old string // the previous content, moved aside; "" if none
	}
	var committed []done
	fail := func(i int, err error) error {
		for j := len(committed) - 1; j >= 0; j-- {
			c := committed[j]
			switch {
			case c.old == "":
				_ = os.RemoveAll(c.s.path)
			case c.s.dir: // a directory cannot be renamed over
				_ = os.RemoveAll(c.s.path)
				_ = os.Rename(c.old, c.s.path)
			default:
				_ = os.Rename(c.old, c.s.path) // atomic: readers see old or new
			}
		}
		for _, s := range staged[i:] {
			s.Abort()
		}
		return err
	}
	for i, s := range staged {
		if s.tmp == "" {
			return fail(i, fmt.Errorf("writing %s: already committed or aborted", s.path))
		}
		old, err := keepOld(s)
		if err != nil {
			return fail(i, fmt.Errorf("writing %s: %w", s.path, unwrapLink(err)))
		}
		if err := os.Rename(s.tmp, s.path); err != nil {
			if old != "" {
				_ = os.Rename(old, s.path) // back in place (over its own link, if linked)
			}
			return fail(i, fmt.Errorf("writing %s: %w", s.path, unwrapLink(err)))
		}
		s.tmp = ""
		committed = append(committed, done{s, old})
	}
	// The renames are durable once the directory entries are synced; a
	// failure here does not undo the (already visible) writes.
	synced := map[string]bool{}
	for _, c := range committed {
		if d := filepath.Dir(c.s.path); !synced[d] {
			synced[d] = true
			_ = SyncDir(d)
		}
		if c.old != "" {
			_ = os.RemoveAll(c.old)
		}
	}
	return nil
}

// keepOld keeps the current content of s's target under a hidden name so a
// failed CommitAll can put it back. A file is hard-linked (it stays in
// place until the rename replaces it); a directory, which cannot be
// renamed over, is moved aside. It returns "" when there is no target.
func keepOld(s *Staged) (string, error) {
	fi, err := os.Lstat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	old := tempName(s.path, "old")
	if fi.IsDir() != s.dir {
		if fi.IsDir() {
			return "", fmt.Errorf("is a directory")
		}
		return "", fmt.Errorf("is a file, not a directory")
	}
	if !s.dir {
		if err := os.Link(s.path, old); err == nil {
			return old, nil
		}
		// No hard links here: move it aside (a reader may briefly miss it).
	}
	if err := os.Rename(s.path, old); err != nil {
		return "", err
	}
	return old, nil
}

// Write runs write against a temporary file next to path and renames it
// into place once write, the flush and the fsync all succeeded (Stage, then
// Commit). On any failure, and on a panic inside write, the temporary file
// is removed and path is untouched; errors name path, never the temporary
// name.
func Write(path string, write func(w io.Writer) error) error {
	s, err := Stage(path, write)
	if err != nil {
		return err
	}
	return s.Commit()
}

// WriteBytes replaces path with data atomically (see Write).
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// CreateExclusive writes data to path atomically and only if path does not
// exist: the content is staged and synced, then hard-linked to path (a link
// fails if the name exists, so exactly one of several concurrent creators
// wins, and readers never see a partial file). The error wraps
// fs.ErrExist when path exists. On a file system without hard links the
// name is claimed with O_EXCL instead (still one winner; a reader may
// briefly see the file short).
func CreateExclusive(path string, data []byte) error {
	return CreateExclusivePerm(path, data, 0o644)
}

// CreateExclusivePerm is CreateExclusive for a file with permissions perm.
func CreateExclusivePerm(path string, data []byte, perm fs.FileMode) error {
	s, err := stage(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	defer s.Abort()
	if err := os.Link(s.tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &fs.PathError{Op: "create", Path: path, Err: fs.ErrExist}
		}
		if !errors.Is(err, syscall.EPERM) && !errors.Is(err, syscall.ENOTSUP) && !errors.Is(err, syscall.ENOSYS) {
			return hideTemp(path, s.tmp, err)
		}
		if err := createExcl(path, data, perm); err != nil {
			return err
		}
	}
	return SyncDir(filepath.Dir(path))
}

// createExcl claims path with O_EXCL and writes data; on failure the
// half-written file is removed.
func createExcl(path string, data []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err // a *PathError naming path; wraps fs.ErrExist if taken
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
	}
	return werr
}

// hideTemp rewrites an error about the temporary name tmp so that it names
// path: users see the file they asked for, not our scratch name.
func hideTemp(path, tmp string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && (tmp == "" || pe.Path == tmp) && pe.Error() == err.Error() {
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	if tmp != "" && strings.Contains(err.Error(), tmp) {
		return &renamed{msg: strings.ReplaceAll(err.Error(), tmp, path), err: err}
	}
	return err
}

// renamed is an error whose text names the target instead of the
// temporary name; errors.Is/As still see the original.
type renamed struct {
	msg string
	err error
}

func (e *renamed) Error() string { return e.msg }
func (e *renamed) Unwrap() error { return e.err }

func unwrapLink(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// SyncDir makes the entries of dir (a rename, a removal) durable. File
// systems that cannot sync a directory are not an error.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// tempName is a hidden name beside path for content being prepared
// (`.name.<tag>-<random>`); directory readers skip hidden names.
func tempName(path, tag string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+tag+"-"+hex.EncodeToString(b[:]))
}
