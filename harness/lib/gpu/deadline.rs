//! Runs driver calls that may never return (device creation, pipeline builds) on a worker thread, each step under the deadline.

use std::sync::mpsc;
use std::time::Duration;

use super::GpuError;

enum Message<T> {
    Step(String),
    Done(T),
}

/// What the work tells its caller: which step it is on, so an overrun names it.
pub struct Progress<'a, T>(&'a mpsc::Sender<Message<T>>);

impl<T> Progress<'_, T> {
    /// Starts `what`; the caller's deadline restarts with it.
    pub fn step(&self, what: impl Into<String>) {
        let _ = self.0.send(Message::Step(what.into()));
    }
}

/// Runs `work` on its own thread, starting with step `first`, and waits at most `deadline` for
/// each step. Past it the caller gets a Deadline error naming the step and the thread is left
/// behind: a driver call cannot be cancelled, and the work owns all it touches, so nothing here
/// ever waits for it again. A panic in `work` is passed on to the caller.
pub fn run<T: Send + 'static>(
    deadline: Duration,
    first: &str,
    work: impl FnOnce(&Progress<T>) -> T + Send + 'static,
) -> Result<T, GpuError> {
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::Builder::new()
        .name("skinproof-setup".into())
        .spawn(move || {
            let done = work(&Progress(&tx));
            // The caller may have given up on it; the result is then dropped here.
            let _ = tx.send(Message::Done(done));
        })
        .map_err(|e| GpuError::Device(format!("cannot start a thread for it: {e}")))?;
    let mut step = first.to_string();
    loop {
        match rx.recv_timeout(deadline) {
            Ok(Message::Step(next)) => step = next,
            Ok(Message::Done(done)) => {
                let _ = worker.join();
                return Ok(done);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                return Err(GpuError::Deadline {
                    what: step,
                    after: deadline,
                })
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
                Err(panic) => std::panic::resume_unwind(panic),
                Ok(()) => unreachable!("the worker ended without its result"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_past_the_deadline_is_named_and_not_waited_for() {
        let start = std::time::Instant::now();
        let result = run(Duration::from_millis(50), "a", |p| {
            p.step("the slow step");
            std::thread::sleep(Duration::from_secs(5));
        });
        assert!(start.elapsed() < Duration::from_secs(2));
        let e = result.unwrap_err();
        assert!(e.is_timeout());
        assert_eq!(
            e.to_string(),
            "the slow step took longer than the deadline of 0.05 s: the driver hung or is too slow (SKINPROOF_TIMEOUT_S raises the deadline)"
        );
    }

    #[test]
    fn each_step_gets_the_whole_deadline() {
        let result = run(Duration::from_millis(300), "a", |p| {
            for step in ["b", "c", "d"] {
                std::thread::sleep(Duration::from_millis(150));
                p.step(step);
            }
            7
        });
        assert_eq!(result.unwrap(), 7);
    }
}
