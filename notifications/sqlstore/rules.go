package sqlstore

import (
	"time"

	"github.com/sluicedata/sluice/notifications/queue"
)

// ruleState is what the intake rules need to know about the stored
// records a batch touches; apply plays the batch against it in arrival
// order, as if each delivery were committed alone.
type ruleState struct {
	tokens map[string]bool
	keys   map[objKey]*keyState
}

type keyState struct {
	latest      time.Time // greatest creationDate in any status
	latestToken string    // the token of that record (a discard's winner)
	hasLatest   bool
	live        []liveRec // PENDING and RETRYING records
}

// liveRec is a live record: a stored one (id) or one of the batch (batch ≥ 0).
type liveRec struct {
	id      int64
	created time.Time
	batch   int
}

// batchPlan is what a batch writes.
type batchPlan struct {
	insert  []int                // request indexes to insert, in arrival order
	status  map[int]queue.Status // their final status (OUTDATED if a later one of the batch superseded them)
	outdate []int64              // stored records to mark OUTDATED
}

func newRuleState() *ruleState {
	return &ruleState{tokens: make(map[string]bool), keys: make(map[objKey]*keyState)}
}

func (st *ruleState) key(k objKey) *keyState {
	ks, ok := st.keys[k]
	if !ok {
		ks = &keyState{}
		st.keys[k] = ks
	}
	return ks
}

func (st *ruleState) apply(reqs []*intakeReq) ([]queue.EnqueueResult, batchPlan) {
	res := make([]queue.EnqueueResult, len(reqs))
	plan := batchPlan{status: make(map[int]queue.Status)}
	for i, q := range reqs {
		r := q.rec
		if st.tokens[r.WebhookToken] {
			res[i].Outcome, res[i].Winner = queue.DiscardedDuplicate, r.WebhookToken
			continue
		}
		if r.ObjectToken == "" {
			// A delivery without an object token is related to no other
			// (HMC never matches a missing objectToken): nothing makes it
			// obsolete and it supersedes nothing.
			st.tokens[r.WebhookToken] = true
			res[i].Outcome = queue.Stored
			plan.insert = append(plan.insert, i)
			plan.status[i] = queue.StatusPending
			continue
		}
		ks := st.key(objKey{r.Source, r.ObjectToken, r.NotificationType})
		if ks.hasLatest && ks.latest.After(r.CreationDate) {
			res[i].Outcome, res[i].Winner = queue.DiscardedObsolete, ks.latestToken
			continue
		}
		kept := ks.live[:0]
		for _, l := range ks.live {
			if !l.created.Before(r.CreationDate) {
				kept = append(kept, l)
				continue
			}
			res[i].Outdated++
			if l.batch >= 0 {
				plan.status[l.batch] = queue.StatusOutdated
			} else {
				plan.outdate = append(plan.outdate, l.id)
			}
		}
		ks.live = append(kept, liveRec{created: r.CreationDate, batch: i})
		// On a tie the later arrival (the higher id) is the winner, as the
		// stores' ORDER BY creation_date DESC, id DESC picks it.
		if !ks.hasLatest || !r.CreationDate.Before(ks.latest) {
			ks.latest, ks.latestToken, ks.hasLatest = r.CreationDate, r.WebhookToken, true
		}
		st.tokens[r.WebhookToken] = true
		res[i].Outcome = queue.Stored
		plan.insert = append(plan.insert, i)
		plan.status[i] = queue.StatusPending
	}
	return res, plan
}
