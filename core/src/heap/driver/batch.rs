//! The calls of one turn: started in call order, on worker threads (with `std`) for
//! concurrent tools when `parallel` allows, each result fed as it comes in; and one call,
//! with a panic caught (with `std`).

use super::{write_records, Io, RunError};
use crate::agent::Agent;
use crate::json::Value;
use crate::model::ToolCall;
use crate::tools::{ToolError, Toolbox};

/// Feeds one result of a batch and writes the records it lets out.
fn feed_one(
    agent: &mut Agent,
    io: &mut Io<'_>,
    id: &str,
    result: Result<Value, ToolError>,
) -> Result<(), RunError> {
    agent.feed_tool_result(id, result).map_err(RunError::Feed)?;
    write_records(agent, io)
}

/// Runs the calls of a batch: without threads, one at a time in call order, `cancel`
/// asked before each but the first (the batch's check point asked it just before); a
/// cancellation leaves the calls not started unrun.
#[cfg(not(feature = "std"))]
pub(super) fn run_batch(
    agent: &mut Agent,
    io: &mut Io<'_>,
    calls: &[ToolCall],
    _parallel: usize,
) -> Result<(), RunError> {
    for (k, call) in calls.iter().enumerate() {
        if k > 0 && (io.cancel)() {
            agent.cancel();
            return write_records(agent, io);
        }
        let result = call_tool(io.toolbox, call);
        feed_one(agent, io, &call.id, result)?;
    }
    Ok(())
}

#[cfg(feature = "std")]
pub(super) use threaded::run_batch;

#[cfg(feature = "std")]
mod threaded {
    use alloc::sync::Arc;
    use alloc::vec::Vec;
    use std::sync::{mpsc, Mutex};
    use std::thread::Scope;

    use super::{call_shared, call_tool, feed_one};
    use crate::agent::Agent;
    use crate::driver::{write_records, Io, RunError};
    use crate::json::Value;
    use crate::model::ToolCall;
    use crate::tools::{Tool, ToolError};

    /// A finished call: its index in the batch and its result.
    type Done = (usize, Result<Value, ToolError>);

    /// The workers of a batch as the driver's thread sees them.
    struct Pool {
        /// Where a call's index goes to be run by the next free worker.
        jobs: mpsc::Sender<usize>,
        results: mpsc::Receiver<Done>,
        /// Workers started.
        workers: usize,
        /// Calls on a worker whose result has not come back.
        busy: usize,
        running: Vec<bool>,
    }

    /// Runs the calls of a batch, started in call order: each call to a concurrent tool on
    /// a worker thread when one of the `parallel - 1` is free, else on this thread,
    /// like every call to another tool. `cancel` is asked before each call is started
    /// but the first (the batch's check point asked it just before); once it says
    /// `true` no other call starts, the calls running are let finish and their results
    /// written, and the run stops as cancelled with the calls not started unrun — as
    /// the one at a time path leaves them, since the calls started are always the
    /// first ones. Each result is fed, and the records it lets out written, as it
    /// comes in.
    pub(in crate::heap::driver) fn run_batch(
        agent: &mut Agent,
        io: &mut Io<'_>,
        calls: &[ToolCall],
        parallel: usize,
    ) -> Result<(), RunError> {
        let shared: Vec<Option<Arc<dyn Tool>>> = calls
            .iter()
            .map(|c| io.toolbox.concurrent(&c.name))
            .collect();
        let wanted = parallel
            .saturating_sub(1)
            .min(shared.iter().filter(|t| t.is_some()).count());
        let (jobs, queue) = mpsc::channel::<usize>();
        let queue = Mutex::new(queue);
        let (done, results) = mpsc::channel::<Done>();
        std::thread::scope(|scope| {
            let workers = (0..wanted)
                .filter(|_| spawn_worker(scope, &queue, done.clone(), calls, &shared))
                .count();
            drop(done);
            let mut pool = Pool {
                jobs,
                results,
                workers,
                busy: 0,
                running: alloc::vec![false; calls.len()],
            };
            let outcome = dispatch(agent, io, calls, &shared, &mut pool);
            // No call starts after this; the workers end once their call is done.
            drop(pool);
            outcome
        })
    }

    /// Starts one worker: it takes call indexes from `queue` until it closes and sends
    /// each result to `done`. `false` if the thread could not be started (its calls
    /// are left to the others).
    fn spawn_worker<'scope>(
        scope: &'scope Scope<'scope, '_>,
        queue: &'scope Mutex<mpsc::Receiver<usize>>,
        done: mpsc::Sender<Done>,
        calls: &'scope [ToolCall],
        shared: &'scope [Option<Arc<dyn Tool>>],
    ) -> bool {
        let worker = move || loop {
            // Nothing panics while the lock is held.
            let job = match queue.lock() {
                Ok(queue) => queue.recv(),
                Err(_) => break,
            };
            let Ok(k) = job else { break };
            let result = match (calls.get(k), shared.get(k)) {
                (Some(call), Some(Some(tool))) => call_shared(tool.as_ref(), call),
                _ => Err(ToolError::new(
                    "the driver handed out a call it does not have",
                )),
            };
            if done.send((k, result)).is_err() {
                break;
            }
        };
        std::thread::Builder::new()
            .spawn_scoped(scope, worker)
            .is_ok()
    }

    /// Starts the calls in order (on a free worker or here), feeding each result as it
    /// comes in; then waits for the running ones.
    fn dispatch(
        agent: &mut Agent,
        io: &mut Io<'_>,
        calls: &[ToolCall],
        shared: &[Option<Arc<dyn Tool>>],
        pool: &mut Pool,
    ) -> Result<(), RunError> {
        let mut cancelled = false;
        for (k, call) in calls.iter().enumerate() {
            if k > 0 && (io.cancel)() {
                cancelled = true;
                break;
            }
            match shared.get(k) {
                Some(Some(_)) if pool.busy < pool.workers && pool.jobs.send(k).is_ok() => {
                    pool.running[k] = true;
                    pool.busy += 1;
                }
                Some(Some(tool)) => {
                    let result = call_shared(tool.as_ref(), call);
                    feed_one(agent, io, &call.id, result)?;
                }
                _ => {
                    let result = call_tool(io.toolbox, call);
                    feed_one(agent, io, &call.id, result)?;
                }
            }
            while let Ok(done) = pool.results.try_recv() {
                take(agent, io, calls, pool, done)?;
            }
        }
        while pool.busy > 0 {
            let Ok(done) = pool.results.recv() else {
                break;
            };
            take(agent, io, calls, pool, done)?;
        }
        // A worker cannot end without its call's result (a panic is caught); if one
        // did, the call may have run: it is recorded as failed, not run again.
        for (call, _) in calls.iter().zip(&pool.running).filter(|(_, r)| **r) {
            let lost = ToolError::new("the thread running it ended without a result");
            feed_one(agent, io, &call.id, Err(lost))?;
        }
        if cancelled {
            agent.cancel();
            write_records(agent, io)?;
        }
        Ok(())
    }

    /// Takes a finished call's result off the pool and feeds it.
    fn take(
        agent: &mut Agent,
        io: &mut Io<'_>,
        calls: &[ToolCall],
        pool: &mut Pool,
        (k, result): Done,
    ) -> Result<(), RunError> {
        pool.running[k] = false;
        pool.busy -= 1;
        feed_one(agent, io, &calls[k].id, result)
    }
}

/// Runs one call of a concurrent tool; a panic becomes the tool's failure.
#[cfg(feature = "std")]
fn call_shared(tool: &dyn crate::tools::Tool, call: &ToolCall) -> Result<Value, ToolError> {
    caught(|| tool.call(&call.arguments))
}

/// Runs one call; with `std`, a panic becomes the tool's failure.
pub(crate) fn call_tool(toolbox: &Toolbox, call: &ToolCall) -> Result<Value, ToolError> {
    // A tool that panicked stays registered: whatever it does on a later call is
    // recorded like any other result.
    caught(|| toolbox.call(&call.name, &call.arguments))
}

/// Runs a tool's call; with `std`, a panic becomes the tool's failure.
fn caught(run: impl FnOnce() -> Result<Value, ToolError>) -> Result<Value, ToolError> {
    #[cfg(feature = "std")]
    {
        use std::panic::{catch_unwind, AssertUnwindSafe};
        catch_unwind(AssertUnwindSafe(run))
            .unwrap_or_else(|payload| Err(ToolError::new(panic_sentence(payload.as_ref()))))
    }
    #[cfg(not(feature = "std"))]
    {
        run()
    }
}

/// `panicked: <message>` from a panic payload.
#[cfg(feature = "std")]
fn panic_sentence(payload: &(dyn core::any::Any + Send)) -> alloc::string::String {
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| {
            payload
                .downcast_ref::<alloc::string::String>()
                .map(|s| s.as_str())
        })
        .unwrap_or("a non-string panic payload");
    alloc::format!("panicked: {message}")
}
