//! The calls of one turn: handed out by the agent in call order as they can start, run
//! on worker threads (with `std`) for concurrent tools when `parallel` allows, each
//! result fed as it comes in; and one call, with a panic caught (with `std`).

use super::{write_records, Io, RunError};
use crate::agent::{Agent, Need};
use crate::json::Value;
use crate::model::ToolCall;
use crate::tools::{ToolError, Toolbox};

/// Feeds one result and writes the records it lets out.
fn feed_one(
    agent: &mut Agent,
    io: &mut Io<'_>,
    id: &str,
    result: Result<Value, ToolError>,
) -> Result<(), RunError> {
    agent.feed_tool_result(id, result).map_err(RunError::Feed)?;
    write_records(agent, io)
}

/// What the agent hands out next, with `running` calls already out: one more call, or
/// none (the turn is over, or every call left is running).
enum Next {
    /// This call passed its check point: start it.
    Call(ToolCall),
    /// Every call handed out is running; wait for one.
    Wait,
    /// The turn is over (the next need is not a call).
    Over,
}

/// Polls the agent for one more call than the `running` ones (each call's check point
/// comes just before it is handed out), writing the records a check point leaves.
fn next_call(agent: &mut Agent, io: &mut Io<'_>, running: usize) -> Result<Next, RunError> {
    loop {
        agent.set_parallel(running + 1);
        let call = match agent.poll(io.cancel) {
            Need::ToolResults { calls } if calls.len() > running => calls.last().cloned(),
            Need::ToolResults { .. } => return Ok(Next::Wait),
            Need::TakeRecords => None,
            _ => return Ok(Next::Over),
        };
        write_records(agent, io)?;
        if let Some(call) = call {
            return Ok(Next::Call(call));
        }
    }
}

/// Runs the calls of a turn one at a time, in call order (without threads).
#[cfg(not(feature = "std"))]
pub(super) fn run_calls(
    agent: &mut Agent,
    io: &mut Io<'_>,
    _parallel: usize,
) -> Result<(), RunError> {
    loop {
        match next_call(agent, io, 0)? {
            Next::Call(call) => {
                let result = call_tool(io.toolbox, &call);
                feed_one(agent, io, &call.id, result)?;
            }
            Next::Wait | Next::Over => return Ok(()),
        }
    }
}

#[cfg(feature = "std")]
pub(super) use threaded::run_calls;

#[cfg(feature = "std")]
mod threaded {
    use alloc::string::String;
    use alloc::sync::Arc;
    use alloc::vec::Vec;
    use std::sync::{mpsc, Mutex};
    use std::thread::Scope;

    use super::{call_shared, call_tool, feed_one, next_call, Next};
    use crate::agent::Agent;
    use crate::driver::{Io, RunError};
    use crate::json::Value;
    use crate::model::ToolCall;
    use crate::tools::{Tool, ToolError};

    /// A call for a worker: the tool and the call.
    type Job = (Arc<dyn Tool>, ToolCall);
    /// A finished call: its id and its result.
    type Done = (String, Result<Value, ToolError>);

    /// The workers of a turn as the driver's thread sees them.
    struct Pool<'scope, 'env> {
        scope: &'scope Scope<'scope, 'env>,
        /// Where a call goes to be run by the next free worker.
        jobs: mpsc::Sender<Job>,
        queue: &'scope Mutex<mpsc::Receiver<Job>>,
        done: mpsc::Sender<Done>,
        results: mpsc::Receiver<Done>,
        /// Most workers to start.
        most: usize,
        /// Workers started.
        workers: usize,
        /// The calls on a worker whose result has not come back.
        running: Vec<String>,
    }

    /// Runs the calls of a turn as the agent hands them out, in call order, one more
    /// each time one can start: a call to a concurrent tool on a worker thread when one
    /// of the `parallel - 1` is free (started when first needed), any other call on
    /// this thread. Each call's check point (`cancel` asked first) comes just before it
    /// is handed out; once a check point stops the run, no other call starts, and the
    /// calls running are let finish and their results written. Each result is fed, and
    /// the records it lets out written, as it comes in.
    pub(in crate::heap::driver) fn run_calls(
        agent: &mut Agent,
        io: &mut Io<'_>,
        parallel: usize,
    ) -> Result<(), RunError> {
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Mutex::new(queue);
        let (done, results) = mpsc::channel::<Done>();
        std::thread::scope(|scope| {
            let mut pool = Pool {
                scope,
                jobs,
                queue: &queue,
                done,
                results,
                most: parallel.saturating_sub(1),
                workers: 0,
                running: Vec::new(),
            };
            let outcome = dispatch(agent, io, &mut pool);
            // No call starts after this; the workers end once their call is done.
            drop(pool);
            outcome
        })
    }

    /// Starts the calls as they are handed out (on a free worker or here), feeding each
    /// result as it comes in, until the turn is over.
    fn dispatch(
        agent: &mut Agent,
        io: &mut Io<'_>,
        pool: &mut Pool<'_, '_>,
    ) -> Result<(), RunError> {
        loop {
            while let Ok(done) = pool.results.try_recv() {
                take(agent, io, pool, done)?;
            }
            match next_call(agent, io, pool.running.len())? {
                Next::Call(call) => match io.toolbox.concurrent(&call.name) {
                    Some(tool) if pool.free_worker() => pool.start(tool, call),
                    Some(tool) => {
                        let result = call_shared(tool.as_ref(), &call);
                        feed_one(agent, io, &call.id, result)?;
                    }
                    None => {
                        let result = call_tool(io.toolbox, &call);
                        feed_one(agent, io, &call.id, result)?;
                    }
                },
                Next::Wait => match pool.results.recv() {
                    Ok(done) => take(agent, io, pool, done)?,
                    // A worker cannot end without its call's result (a panic is caught);
                    // if every one did, the calls may have run: they are recorded as
                    // failed, not run again.
                    Err(_) => {
                        for id in core::mem::take(&mut pool.running) {
                            let lost =
                                ToolError::new("the thread running it ended without a result");
                            feed_one(agent, io, &id, Err(lost))?;
                        }
                    }
                },
                Next::Over => return Ok(()),
            }
        }
    }

    impl Pool<'_, '_> {
        /// Whether a worker is free now, starting one if none is and fewer than the
        /// most are running.
        fn free_worker(&mut self) -> bool {
            if self.running.len() < self.workers {
                return true;
            }
            self.workers < self.most && self.spawn()
        }

        /// Hands `call` to the next free worker.
        fn start(&mut self, tool: Arc<dyn Tool>, call: ToolCall) {
            let id = call.id.clone();
            if self.jobs.send((tool, call)).is_ok() {
                self.running.push(id);
            }
        }

        /// Starts one worker: it takes calls from the queue until it closes and sends
        /// each result back. `false` if the thread could not be started.
        fn spawn(&mut self) -> bool {
            let queue = self.queue;
            let done = self.done.clone();
            let worker = move || loop {
                // Nothing panics while the lock is held.
                let job = match queue.lock() {
                    Ok(queue) => queue.recv(),
                    Err(_) => break,
                };
                let Ok((tool, call)) = job else { break };
                let result = call_shared(tool.as_ref(), &call);
                if done.send((call.id, result)).is_err() {
                    break;
                }
            };
            let started = std::thread::Builder::new()
                .spawn_scoped(self.scope, worker)
                .is_ok();
            self.workers += usize::from(started);
            started
        }
    }

    /// Takes a finished call's result off the pool and feeds it.
    fn take(
        agent: &mut Agent,
        io: &mut Io<'_>,
        pool: &mut Pool<'_, '_>,
        (id, result): Done,
    ) -> Result<(), RunError> {
        pool.running.retain(|r| *r != id);
        feed_one(agent, io, &id, result)
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
