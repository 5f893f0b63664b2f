package clean

import (
	"fmt"
	"regexp"

	"github.com/taskresume/git-taskresume/internal/gitcmd"
)

// record writes every save in one atomic ref transaction. Until it
// commits, nothing has been removed; a crash before leaves every directory
// aside, and the next clean puts it back.
func (c *cleaner) record(saves []gitcmd.RefUpdate) error {
	if c.opts.DryRun || len(saves) == 0 {
		return nil
	}
	if err := c.transaction(saves); err != nil {
		return fmt.Errorf("save to %s: %w", c.prefix, err)
	}
	for _, a := range c.res.Actions {
		if len(a.Op) > 5 && a.Op[:5] == "save_" {
			a.Done = true
		}
	}
	c.steps.step()
	return nil
}

// transaction runs one ref transaction, recording beforehand the lock
// files git will take, so that a clean that finds them after a crash knows
// they are its own.
func (c *cleaner) transaction(updates []gitcmd.RefUpdate) error {
	if c.lock != nil {
		if err := c.lock.RecordTxn(c.repo.CommonDir, updates); err != nil {
			return err
		}
	}
	err := c.repo.UpdateRefsPrepared(c.ctx, updates, c.steps.inTxn)
	if c.lock != nil {
		c.lock.ClearTxn()
	}
	if err != nil {
		return explainLock(err)
	}
	return nil
}

var lockExists = regexp.MustCompile(`Unable to create '([^']+\.lock)': File exists`)

// explainLock turns git's "File exists" on a lock into what to do: git's
// lock files name no owner, and one another git process holds must not be
// deleted.
func explainLock(err error) error {
	m := lockExists.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	return fmt.Errorf("the lock file %s blocks it: another git process is updating that ref, or one died; check with `ps -ef | grep git` and, only if no git process runs, remove it and rerun", m[1])
}
