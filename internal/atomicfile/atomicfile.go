// Package atomicfile writes files and directories so that a reader sees the
// old content or the new, never a part: the new content goes to a synced
// temporary name beside the target and is renamed into place.
//
//	err := atomicfile.WriteBytes("catalog/yt/videos.state.json", data)
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
)

// Write runs write against a buffered temporary file next to path and
// renames it into place once write, the flush and the fsync all succeeded.
// On any failure, and on a panic
// inside write, the temporary file is removed and path is untouched; errors
// name path, never the temporary name.
func Write(path string, write func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return hideTemp(path, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
		if err != nil {
			err = hideTemp(path, err)
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	done = true
	// The rename is durable only once the directory entry is synced; a
	// failure here does not undo the (already visible) write.
	_ = SyncDir(dir)
	return nil
}

// hideTemp rewrites a file-system error about the temporary file so that it
// names path: users see the file they asked for, not our scratch name.
func hideTemp(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return &fs.PathError{Op: "rename", Path: path, Err: le.Err}
	}
	return err
}

// WriteBytes replaces path with data atomically (see Write).
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
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

// TempName is a hidden name beside path for content being prepared
// (`.name.<tag>-<random>`); directory readers skip hidden names.
func TempName(path, tag string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+tag+"-"+hex.EncodeToString(b[:]))
}

// ReplaceDir puts the complete directory tmp in place of final (which may
// not exist). A directory cannot be renamed over another: the old one is
// moved aside, the new one renamed in, then the old one removed; if the
// second rename fails the old one is put back, so final always holds the
// old data or the new.
func ReplaceDir(tmp, final string) error {
	old := ""
	if _, err := os.Stat(final); err == nil {
		old = TempName(final, "old")
		if err := os.Rename(final, old); err != nil {
			return fmt.Errorf("replacing %s: %w", final, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("replacing %s: %w", final, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		if old != "" {
			_ = os.Rename(old, final)
		}
		return fmt.Errorf("writing %s: %w", final, err)
	}
	_ = SyncDir(filepath.Dir(final))
	if old != "" {
		_ = os.RemoveAll(old)
	}
	return nil
}
