//! The workers of `tether idem`: jobs run in parallel, each worker holding a
//! workspace (a copy of the tree, or an overlay) that it makes only when one more
//! pays.
//!
//! Not rayon, though the crate uses it elsewhere: a rayon pool splits work without
//! asking what a worker's state costs, and `map_init` would make a workspace per
//! split, where here a workspace can cost seconds (a copy of a monorepo) and jobs
//! (a command run) cost anything from milliseconds to minutes. What decides is a
//! measure taken as the run goes: a new workspace is made when the work left,
//! shared by one more worker, outlasts making it. Jobs are also long and blocking
//! (a child process waited for), which rayon's pool is not made for, and the
//! workspaces use rayon inside (a copy's files, the entries read back).
//!
//! No lock: jobs are taken in order from an atomic counter, the costs are atomics
//! (the first copy's cost set once), each worker keeps its own results and returns
//! them with its workspace when it ends.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Runs `work` on every item with up to `jobs` workers, each holding a workspace
/// (`W`) from `free` or made by `make`; results in item order, and every workspace
/// back in `free` at the end, for the next call.
///
/// A worker without a workspace makes one only when that pays: the first worker
/// always (when `free` has none for it), the others once a workspace has been made
/// and a job has run, when the work left, shared by one more worker, outlasts making
/// it. One target's few checks then run in one workspace, a monorepo's hundreds in
/// one per core. A workspace that cannot be made is the `Err` each job left to that
/// worker is given.
pub fn parallel<J: Sync, R: Send, W: Send>(
    items: &[J],
    jobs: usize,
    free: &mut Vec<W>,
    make: &(dyn Fn() -> std::io::Result<W> + Sync),
    work: &(dyn Fn(Result<&mut W, &std::io::Error>, &J) -> R + Sync),
) -> Vec<R> {
    if items.is_empty() {
        return Vec::new();
    }
    let workers = jobs.max(1).min(items.len());
    let pool = Pool {
        items,
        next: AtomicUsize::new(0),
        copy_cost: OnceLock::new(),
        job_nanos: AtomicU64::new(0),
        jobs_done: AtomicU64::new(0),
        holders: AtomicUsize::new(0),
    };
    let owned: Vec<Option<W>> = (0..workers).map(|_| free.pop()).collect();
    let finished: Vec<Finished<R, W>> = std::thread::scope(|scope| {
        let handles: Vec<_> = owned
            .into_iter()
            .enumerate()
            .map(|(worker, own)| {
                let pool = &pool;
                scope.spawn(move || pool.worker(worker, own, make, work))
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let mut results = Vec::with_capacity(items.len());
    for (done, own) in finished {
        results.extend(done);
        free.extend(own);
    }
    results.sort_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, result)| result).collect()
}

/// What a worker leaves: its results by item index, and its workspace.
type Finished<R, W> = (Vec<(usize, R)>, Option<W>);

/// What the workers of one call share.
struct Pool<'a, J> {
    items: &'a [J],
    /// The next item to take: items start in order.
    next: AtomicUsize,
    /// What making the first workspace of this call cost.
    copy_cost: OnceLock<Duration>,
    /// The time the jobs run so far took, in nanoseconds, and how many they were.
    job_nanos: AtomicU64,
    jobs_done: AtomicU64,
    /// Workers holding a workspace.
    holders: AtomicUsize,
}

impl<J: Sync> Pool<'_, J> {
    /// One worker: its workspace (`own`, else made when it pays), then jobs until
    /// none is left. Returns its results and its workspace.
    fn worker<R, W>(
        &self,
        worker: usize,
        mut own: Option<W>,
        make: &(dyn Fn() -> std::io::Result<W> + Sync),
        work: &(dyn Fn(Result<&mut W, &std::io::Error>, &J) -> R + Sync),
    ) -> Finished<R, W> {
        let mut done = Vec::new();
        // Wait to know whether another workspace pays.
        if own.is_none() && worker > 0 && !self.another_pays() {
            return (done, None);
        }
        if own.is_none() {
            let start = Instant::now();
            match make() {
                Ok(made) => {
                    let _ = self.copy_cost.set(start.elapsed());
                    own = Some(made);
                }
                Err(error) => {
                    // Every job this worker would have run says why.
                    while let Some(index) = self.take() {
                        done.push((index, work(Err(&error), &self.items[index])));
                    }
                    return (done, None);
                }
            }
        }
        let Some(workspace) = own.as_mut() else {
            return (done, None);
        };
        self.holders.fetch_add(1, Ordering::SeqCst);
        while let Some(index) = self.take() {
            let start = Instant::now();
            let result = work(Ok(&mut *workspace), &self.items[index]);
            let nanos = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
            self.job_nanos.fetch_add(nanos, Ordering::SeqCst);
            self.jobs_done.fetch_add(1, Ordering::SeqCst);
            done.push((index, result));
        }
        (done, own)
    }

    /// The next item, in order; `None` when all are taken.
    fn take(&self) -> Option<usize> {
        let index = self.next.fetch_add(1, Ordering::SeqCst);
        (index < self.items.len()).then_some(index)
    }

    /// Items not taken yet.
    fn remaining(&self) -> usize {
        self.items
            .len()
            .saturating_sub(self.next.load(Ordering::SeqCst))
    }

    /// Waits until it is known whether one more workspace pays: `false` when it
    /// does not, or when no job is left.
    fn another_pays(&self) -> bool {
        loop {
            if self.remaining() == 0 {
                return false;
            }
            match self.worth_a_copy() {
                Some(pays) => return pays,
                None => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    }

    /// Whether the work left, shared by one more worker, outlasts making a
    /// workspace; `None` until a workspace has been made and a job has run.
    fn worth_a_copy(&self) -> Option<bool> {
        let copy = *self.copy_cost.get()?;
        let count = self.jobs_done.load(Ordering::SeqCst);
        if count == 0 {
            return None;
        }
        let average = Duration::from_nanos(self.job_nanos.load(Ordering::SeqCst) / count);
        let sharing = self.holders.load(Ordering::SeqCst) as u32 + 1;
        Some(average * self.remaining() as u32 / sharing > copy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Results come back in item order whatever the workers' order, and the
    /// workspaces given come back for the next call.
    #[test]
    fn results_are_in_item_order_and_workspaces_come_back() {
        let items: Vec<u64> = (0..40).collect();
        let mut free = vec![String::from("a"), String::from("b")];
        let make = || -> std::io::Result<String> { Ok(String::from("made")) };
        let results = parallel(&items, 4, &mut free, &make, &|workspace, item| {
            std::thread::sleep(Duration::from_millis(40 - item));
            workspace.map(|_| item * 2).unwrap_or(0)
        });
        assert_eq!(results, (0..40).map(|item| item * 2).collect::<Vec<_>>());
        assert!(free.contains(&String::from("a")) && free.contains(&String::from("b")));
    }

    /// A worker that cannot make a workspace gives every job it takes the error.
    #[test]
    fn a_workspace_that_cannot_be_made_is_every_jobs_error() {
        let items = [1, 2, 3];
        let mut free: Vec<()> = Vec::new();
        let make = || -> std::io::Result<()> { Err(std::io::Error::other("no room")) };
        let results = parallel(&items, 1, &mut free, &make, &|workspace, _| {
            workspace
                .map(|_| String::new())
                .unwrap_or_else(|error| error.to_string())
        });
        assert_eq!(results, vec!["no room"; 3]);
        assert!(free.is_empty());
    }

    /// No job, no workspace made.
    #[test]
    fn no_items_make_no_workspace() {
        let mut free: Vec<()> = Vec::new();
        let make = || -> std::io::Result<()> { panic!("a workspace was made for no item") };
        let results: Vec<()> = parallel(&[] as &[u8], 4, &mut free, &make, &|_, _| ());
        assert!(results.is_empty());
    }
}
