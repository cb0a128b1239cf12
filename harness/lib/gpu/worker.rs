//! The device's worker thread: GPU jobs run on it one at a time, each step under the deadline; a step past it abandons the device.
//!
//! A driver call cannot be cancelled, and a shader that never ends blocks `queue.submit`, a poll
//! or a map (GL compiles and links only at the first draw), so no wait inside the job can bound
//! it. The caller waits for the job's events instead; past the deadline it stops waiting, the
//! device is marked abandoned, its thread is left inside the driver, and the device is never
//! dropped (dropping a queue waits for it to go idle). The adapter's later work gets a fresh
//! device (see `suite`), as deqp-runner and the CTS device pool do.

use std::any::Any;
use std::io::Write as _;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::thread::ThreadId;
use std::time::Duration;

use super::{Context, GpuError};

type Job = Box<dyn FnOnce() + Send>;

enum Event {
    Started,
    Step(String),
    Done(Box<dyn Any + Send>),
    Panicked(Box<dyn Any + Send>),
}

/// How often a queued job looks whether the device was abandoned while it waited for its turn.
const QUEUED_POLL: Duration = Duration::from_millis(20);

/// One device's thread and what its jobs share: the running job's events, and whether the device
/// was abandoned.
pub struct Worker {
    jobs: Mutex<mpsc::Sender<Job>>,
    thread: ThreadId,
    current: Mutex<Option<mpsc::Sender<Event>>>,
    abandoned: Mutex<Option<String>>,
}

impl Worker {
    /// Starts the thread; it ends when the worker is dropped and its queue is empty.
    pub fn start(name: &str) -> Result<Arc<Worker>, GpuError> {
        let (tx, rx) = mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name(format!("skinproof-gpu {name}"))
            .spawn(move || {
                while let Ok(job) = rx.recv() {
                    job();
                }
            })
            .map_err(|e| GpuError::Device(format!("cannot start the device's thread: {e}")))?;
        Ok(Arc::new(Worker {
            jobs: Mutex::new(tx),
            thread: thread.thread().id(),
            current: Mutex::new(None),
            abandoned: Mutex::new(None),
        }))
    }

    /// Why the device was abandoned, once it was.
    pub fn abandoned(&self) -> Option<String> {
        lock(&self.abandoned).clone()
    }

    /// Marks the device abandoned (the first reason stays); true for the call that did.
    pub(super) fn abandon(&self, why: String) -> bool {
        let mut slot = lock(&self.abandoned);
        let first = slot.is_none();
        if first {
            *slot = Some(why);
        }
        first
    }

    fn on_worker(&self) -> bool {
        std::thread::current().id() == self.thread
    }

    /// Starts `what` in the running job: its caller's deadline restarts. Only the worker's own
    /// thread reports steps; elsewhere (work outside a job) this does nothing.
    pub fn step(&self, what: String) {
        if self.on_worker() {
            if let Some(tx) = lock(&self.current).as_ref() {
                let _ = tx.send(Event::Step(what));
            }
        }
    }
}

/// Runs `work` on `ctx`'s device thread after the jobs before it, starting with step `first`, and
/// waits at most the deadline for each step. Past it the device is abandoned and the caller gets
/// a Deadline error naming the step; a job that never started because the device was abandoned
/// meanwhile gets `Abandoned` (it may run again on a fresh device). A panic in `work` is passed on.
pub fn run<T: Send + 'static>(
    ctx: &Arc<Context>,
    first: &str,
    work: impl FnOnce(&Context) -> T + Send + 'static,
) -> Result<T, GpuError> {
    let worker = ctx.worker.clone();
    if worker.on_worker() {
        // A job inside a job: the thread is already this device's.
        return Ok(work(ctx));
    }
    if let Some(why) = worker.abandoned() {
        return Err(GpuError::Abandoned(why));
    }
    let (tx, rx) = mpsc::channel();
    let job_ctx = ctx.clone();
    let job: Job = Box::new(move || {
        // Queued before the device was abandoned, reached after its step came back.
        if job_ctx.worker.abandoned().is_some() {
            return;
        }
        *lock(&job_ctx.worker.current) = Some(tx.clone());
        let _ = tx.send(Event::Started);
        let out = catch_unwind(AssertUnwindSafe(|| work(&job_ctx)));
        *lock(&job_ctx.worker.current) = None;
        // The caller may have given up on it; the result is then dropped here.
        let _ = tx.send(match out {
            Ok(v) => Event::Done(Box::new(v)),
            Err(p) => Event::Panicked(p),
        });
    });
    if lock(&worker.jobs).send(job).is_err() {
        return Err(GpuError::Device("the device's thread has ended".into()));
    }
    // Its turn: no deadline while earlier jobs run (their callers bound them).
    loop {
        match rx.recv_timeout(QUEUED_POLL) {
            Ok(Event::Started) => break,
            Ok(_) => unreachable!("a job reports only after it started"),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Some(why) = worker.abandoned() {
                    return Err(GpuError::Abandoned(why));
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(GpuError::Abandoned(worker.abandoned().unwrap_or_default()))
            }
        }
    }
    let deadline = ctx.timeout;
    let mut step = first.to_string();
    loop {
        match rx.recv_timeout(deadline) {
            Ok(Event::Step(next)) => step = next,
            Ok(Event::Done(v)) => {
                return Ok(*v.downcast::<T>().expect("a job's result has its type"))
            }
            Ok(Event::Panicked(p)) => resume_unwind(p),
            Ok(Event::Started) => unreachable!("a job starts once"),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // A fresh device's step may wait behind the abandoned work in a driver that
                // shares its threads between devices (llvmpipe's GL compute): say so.
                if ctx.replaces > 0 {
                    step = format!(
                        "{step}, on a fresh device after {} abandoned on this adapter whose work the driver may still be doing,",
                        ctx.replaces
                    );
                }
                ctx.abandon(&step);
                return Err(GpuError::Deadline {
                    what: step,
                    after: deadline,
                });
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                unreachable!("a started job ends with its result")
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// How many devices one piece of work tries when each was abandoned before its turn came.
const TRIES: usize = 4;

/// Runs `work` as a job on the device `devices` gives (the adapter's current one, a fresh one
/// after an abandonment); work that did not run because that device
/// was abandoned meanwhile (another job hung it) runs on the next device.
pub fn on_device<T: Send + 'static>(
    devices: &dyn Fn() -> Result<Arc<Context>, GpuError>,
    first: &str,
    work: impl FnOnce(&Context) -> T + Clone + Send + 'static,
) -> Result<T, GpuError> {
    let mut last = None;
    for _ in 0..TRIES {
        match devices()?.job(first, work.clone()) {
            Err(e @ GpuError::Abandoned(_)) => last = Some(e),
            done => return done,
        }
    }
    Err(last.expect("at least one try"))
}

/// Ends the process with `code`, its output flushed, without the drivers' exit handlers or any
/// device teardown. Both have crashed a process whose trials had all passed: Mesa's EGL teardown
/// (`Error in terminate: BadDisplay`, then a heap corruption abort) and lavapipe's (SIGSEGV), about
/// once in a hundred processes under cargo-nextest; and after a device was abandoned a thread may
/// still be inside the driver they would tear down. The kernel frees what the process held.
pub fn exit(code: i32) -> ! {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    #[cfg(unix)]
    // SAFETY: fflush(NULL) flushes every C stream (a validation layer may log through one) and
    // takes no pointer of ours; _exit takes none and never returns; it skips the exit handlers on
    // purpose.
    unsafe {
        libc::fflush(std::ptr::null_mut());
        libc::_exit(code)
    }
    #[cfg(not(unix))]
    std::process::exit(code)
}
