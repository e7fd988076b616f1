//! Synthetic sessions for benchmarks: many threads, messages, batches and confirmations
//! (`generate`), or a broad tree of threads with a few open questions spread over it, for
//! trying the overview (`generate_breadth`).
//!
//! The generator is deterministic for a seed, so a benchmark names its input by its flags. It
//! produces only events that the fold accepts (answers name real items and options, threads
//! open before anything is posted in them), so a generated log exercises the same code as a
//! real one.

use chatsurface_model::{
    AnswerKind, BatchCloseReason, BatchSpec, ChoiceOption, ClarificationItem, ConfirmationOutcome,
    ConfirmationSpec, DecisionSpec, EventBody, ItemAnswer, MessageSpec, Role, Session, ThreadKind,
    ThreadSpec, ThreadStatus,
};

/// How big a session to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeneratorConfig {
    /// Messages.
    pub messages: usize,
    /// Threads (at least one).
    pub threads: usize,
    /// Clarification batches.
    pub batches: usize,
    /// Seed for the choices.
    pub seed: u64,
}

const SUBJECTS: &[&str] = &[
    "storage layer",
    "event log",
    "overview panel",
    "batch cards",
    "font fallback",
    "scroll anchor",
    "MCP tools",
    "socket auth",
    "draft autosave",
    "release notes",
    "CI pipeline",
    "layout cache",
    "журнал событий",
    "тема кокпита",
];
const VERBS: &[&str] = &[
    "Refactor",
    "Measure",
    "Design",
    "Fix",
    "Review",
    "Document",
    "Разобрать",
    "Проверить",
];
const WORDS: &[&str] = &[
    "the",
    "agent",
    "writes",
    "each",
    "event",
    "before",
    "answering",
    "so",
    "nothing",
    "is",
    "lost",
    "when",
    "window",
    "closes",
    "layout",
    "caches",
    "cards",
    "by",
    "revision",
    "and",
    "width",
    "we",
    "keep",
    "overview",
    "small",
    "событие",
    "записано",
    "до",
    "ответа",
    "окно",
    "закрыто",
    "ничего",
    "не",
    "потеряно",
];

struct Generator {
    rng: fastrand::Rng,
    opened: usize,
    messages: usize,
}

impl Generator {
    fn sentence(&mut self, words: usize) -> String {
        let mut text = String::new();
        for index in 0..words {
            if index > 0 {
                text.push(' ');
            }
            text.push_str(WORDS[self.rng.usize(..WORDS.len())]);
        }
        text.push('.');
        text
    }

    fn title(&mut self, index: usize) -> String {
        format!(
            "{} {} #{index}",
            VERBS[self.rng.usize(..VERBS.len())],
            SUBJECTS[self.rng.usize(..SUBJECTS.len())]
        )
    }

    /// A thread among those opened, usually a recent one.
    fn thread_id(&mut self) -> String {
        let index = if self.rng.u8(..10) < 7 {
            self.opened - 1 - self.rng.usize(..self.opened.min(20))
        } else {
            self.rng.usize(..self.opened)
        };
        format!("t{index}")
    }

    fn message(&mut self) -> EventBody {
        let id = format!("m{}", self.messages);
        self.messages += 1;
        let role = match self.rng.u8(..10) {
            0..=4 => Role::Agent,
            5..=7 => Role::User,
            8 => Role::Tool,
            _ => Role::System,
        };
        let words = self.rng.usize(6..40);
        let mut text = self.sentence(words);
        match self.rng.u8(..20) {
            0 => {
                text.push_str("\n\n```rust\n");
                for line in 0..self.rng.usize(4..30) {
                    text.push_str(&format!("let value_{line} = cache.get(&key_{line});\n"));
                }
                text.push_str("```\n");
            }
            1 | 2 => {
                for _ in 0..self.rng.usize(2..6) {
                    let item = self.sentence(5);
                    text.push_str(&format!("\n- {item}"));
                }
            }
            3 => {
                for _ in 0..30 {
                    text.push(' ');
                    text.push_str(&self.sentence(12));
                }
            }
            _ => {}
        }
        let thread_id = self.thread_id();
        EventBody::MessageAppended {
            message: MessageSpec {
                id: id.as_str().into(),
                thread_id: thread_id.as_str().into(),
                role,
                text,
            },
        }
    }

    fn batch(&mut self, index: usize) -> (BatchSpec, Vec<ItemAnswer>) {
        let mut items = Vec::new();
        let mut answers = Vec::new();
        for item_index in 0..self.rng.usize(1..5) {
            let id = format!("q{item_index}");
            let kind = match self.rng.u8(..4) {
                0 => AnswerKind::Text,
                1 => AnswerKind::Multiline,
                2 => AnswerKind::Choice,
                _ => AnswerKind::YesNo,
            };
            let options: Vec<ChoiceOption> = if kind == AnswerKind::Choice {
                (0..self.rng.usize(2..6))
                    .map(|option| ChoiceOption {
                        id: format!("o{option}").as_str().into(),
                        label: format!("Option {option}: {}", SUBJECTS[option % SUBJECTS.len()]),
                        detail: (option == 0)
                            .then(|| "What the agent would do with this.".to_owned()),
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let answer = match kind {
                AnswerKind::Text | AnswerKind::Multiline => ItemAnswer {
                    item_id: id.as_str().into(),
                    text: Some(self.sentence(6)),
                    ..ItemAnswer::default()
                },
                AnswerKind::Choice => ItemAnswer {
                    item_id: id.as_str().into(),
                    selected: vec![options[self.rng.usize(..options.len())].id.clone()],
                    ..ItemAnswer::default()
                },
                AnswerKind::YesNo => ItemAnswer {
                    item_id: id.as_str().into(),
                    selected: vec![if self.rng.bool() { "yes" } else { "no" }.into()],
                    ..ItemAnswer::default()
                },
            };
            answers.push(answer);
            let recommended = options.first().map(|option| option.id.clone());
            items.push(ClarificationItem {
                id: id.as_str().into(),
                prompt: format!("{}?", self.sentence(8)),
                header: Some(format!("Item {item_index}")),
                kind,
                options,
                multiple: false,
                custom: false,
                recommended,
            });
        }
        let thread_id = self.thread_id();
        let spec = BatchSpec {
            held: false,
            id: format!("b{index}").as_str().into(),
            thread_id: thread_id.as_str().into(),
            title: Some(format!("Questions #{index}")),
            items,
            general_field: self.rng.bool(),
            timeout_s: None,
            attachment: None,
        };
        (spec, answers)
    }
}

/// The events of a generated session, in log order.
pub fn generate(config: &GeneratorConfig) -> Vec<EventBody> {
    let threads = config.threads.max(1);
    let confirmations = config.batches / 5;
    let decisions = threads / 2;
    let content = config.messages + config.batches + confirmations + decisions;
    let mut generator = Generator {
        rng: fastrand::Rng::with_seed(config.seed),
        opened: 0,
        messages: 0,
    };
    let mut events = Vec::with_capacity(content + threads * 2 + config.batches + 1);
    events.push(EventBody::SessionStarted {
        session: Session {
            id: format!("generated-{}", config.seed).as_str().into(),
            title: format!(
                "Generated session: {} messages, {threads} threads",
                config.messages
            ),
            agent: Some("chatsurface gen".into()),
            created_by: None,
        },
    });
    let topics = (threads / 100).max(1);
    let (mut messages, mut batches, mut confirmations_made, mut decisions_made) = (0, 0, 0, 0);
    for step in 0..content.max(1) {
        // Threads open evenly through the first 80% of the session.
        while generator.opened < threads
            && generator.opened * content.max(1) * 4 / 5 <= step * threads
        {
            let index = generator.opened;
            let parent = (index >= topics).then(|| {
                format!("t{}", generator.rng.usize(index.saturating_sub(50)..index))
                    .as_str()
                    .into()
            });
            let kind = match (index < topics, generator.rng.u8(..4)) {
                (true, _) => ThreadKind::Topic,
                (false, 0) => ThreadKind::Exploration,
                _ => ThreadKind::Branch,
            };
            let title = generator.title(index);
            events.push(EventBody::ThreadOpened {
                thread: ThreadSpec {
                    id: format!("t{index}").as_str().into(),
                    parent,
                    title,
                    kind,
                },
            });
            generator.opened += 1;
        }
        let pick = generator.rng.usize(..content.max(1));
        if pick < config.batches && batches < config.batches {
            let (spec, answers) = generator.batch(batches);
            let id = spec.id.clone();
            events.push(EventBody::ClarificationBatchOpened { batch: spec });
            match generator.rng.u8(..10) {
                0..=6 => events.push(EventBody::ClarificationAnswerSubmitted {
                    batch_id: id,
                    answers,
                    general: None,
                }),
                7 => events.push(EventBody::ClarificationBatchClosed {
                    batch_id: id,
                    reason: BatchCloseReason::Expired,
                }),
                _ => {}
            }
            batches += 1;
        } else if pick < config.batches + confirmations && confirmations_made < confirmations {
            let id = format!("c{confirmations_made}");
            let thread_id = generator.thread_id();
            events.push(EventBody::ConfirmationRequested {
                confirmation: ConfirmationSpec {
                    held: false,
                    id: id.as_str().into(),
                    thread_id: thread_id.as_str().into(),
                    title: Some(format!("Run migration #{confirmations_made}?")),
                    message: "This rewrites the storage files in place.".into(),
                    accept: Some("Run it".into()),
                    decline: Some("Not now".into()),
                    accept_always: None,
                    comment: true,
                    timeout_s: Some(600.0),
                    attachment: None,
                },
            });
            if generator.rng.u8(..10) < 8 {
                let outcome = if generator.rng.bool() {
                    ConfirmationOutcome::Accepted
                } else {
                    ConfirmationOutcome::Declined
                };
                events.push(EventBody::ConfirmationResolved {
                    confirmation_id: id.as_str().into(),
                    outcome,
                    comment: None,
                    always: false,
                });
            }
            confirmations_made += 1;
        } else if pick < config.batches + confirmations + decisions && decisions_made < decisions {
            let thread_id = generator.thread_id();
            let text = format!("Decided: {}", generator.sentence(8));
            events.push(EventBody::DecisionRecorded {
                decision: DecisionSpec {
                    id: format!("d{decisions_made}").as_str().into(),
                    thread_id: thread_id.as_str().into(),
                    text,
                    batch_id: None,
                },
            });
            decisions_made += 1;
        } else if messages < config.messages {
            events.push(generator.message());
            messages += 1;
        }
    }
    while messages < config.messages {
        events.push(generator.message());
        messages += 1;
    }
    // Batches the random walk did not reach are asked last, and stay open.
    while batches < config.batches {
        let (spec, _) = generator.batch(batches);
        events.push(EventBody::ClarificationBatchOpened { batch: spec });
        batches += 1;
    }
    for index in 0..generator.opened {
        let status = match generator.rng.u8(..20) {
            0..=11 => ThreadStatus::Resolved,
            12..=14 => ThreadStatus::Parked,
            _ => continue,
        };
        events.push(EventBody::ThreadStatusChanged {
            thread_id: format!("t{index}").as_str().into(),
            status,
        });
    }
    events
}

/// Long thread titles, Russian and English, for a broad session (a title holds 60 chars).
const BROAD_TITLES: &[&str] = &[
    "Разобрать журнал событий и границы тредов",
    "Review how the overview folds resolved branches",
    "Проверить, что черновики переживают закрытие окна",
    "Measure the first frame of an imported session",
    "Согласовать формат вложений для подтверждений",
    "Decide whether sub-agents open as explorations",
];

/// A broad session: `threads` threads in all, a tenth of them topics and the rest branches
/// nested up to four deep below them, `batches` open questions in threads chosen at random
/// (each titled "Question N" or "Вопрос N"), `messages` messages spread over the threads, and
/// 60 % of the branches without a question resolved.
pub fn generate_breadth(config: &GeneratorConfig) -> Vec<EventBody> {
    /// How deep branches nest below their topic.
    const DEEPEST: usize = 4;
    let threads = config.threads.max(1);
    let topics = (threads / 10).max(1);
    let mut generator = Generator {
        rng: fastrand::Rng::with_seed(config.seed),
        opened: 0,
        messages: 0,
    };
    let mut events = vec![EventBody::SessionStarted {
        session: Session {
            id: format!("broad-{}", config.seed).as_str().into(),
            title: format!(
                "Broad session: {threads} threads, {} open questions",
                config.batches
            ),
            agent: Some("chatsurface gen --breadth".into()),
            created_by: None,
        },
    }];
    let mut depth_of: Vec<usize> = Vec::with_capacity(threads);
    for index in 0..threads {
        let parent = (index >= topics).then(|| loop {
            let candidate = generator.rng.usize(..index);
            if depth_of[candidate] < DEEPEST {
                break candidate;
            }
        });
        depth_of.push(parent.map_or(0, |parent| depth_of[parent] + 1));
        let title = format!(
            "{} · {index}",
            BROAD_TITLES[generator.rng.usize(..BROAD_TITLES.len())]
        );
        events.push(EventBody::ThreadOpened {
            thread: ThreadSpec {
                id: format!("t{index}").as_str().into(),
                parent: parent.map(|parent| format!("t{parent}").as_str().into()),
                title,
                kind: if parent.is_none() {
                    ThreadKind::Topic
                } else {
                    ThreadKind::Branch
                },
            },
        });
        generator.opened += 1;
    }
    for _ in 0..config.messages {
        events.push(generator.message());
    }
    let mut asking = vec![false; threads];
    for index in 0..config.batches {
        let (mut spec, _) = generator.batch(index);
        let thread = generator.rng.usize(..threads);
        asking[thread] = true;
        spec.thread_id = format!("t{thread}").as_str().into();
        spec.title = Some(if index % 2 == 0 {
            format!("Вопрос {index}")
        } else {
            format!("Question {index}")
        });
        events.push(EventBody::ClarificationBatchOpened { batch: spec });
    }
    for (index, asks) in asking.iter().enumerate().skip(topics) {
        if !asks && generator.rng.u8(..10) < 6 {
            events.push(EventBody::ThreadStatusChanged {
                thread_id: format!("t{index}").as_str().into(),
                status: ThreadStatus::Resolved,
            });
        }
    }
    events
}

/// Folds generated events into a snapshot without a file, numbered from 1 as a log would
/// number them (for benchmarks and tests that need no log on disk).
pub fn fold_in_memory(
    events: Vec<EventBody>,
) -> Result<chatsurface_model::Snapshot, chatsurface_model::FoldError> {
    chatsurface_model::Snapshot::from_events(events.into_iter().enumerate().map(|(index, body)| {
        chatsurface_model::Event {
            v: 1,
            seq: index as u64 + 1,
            at: "2026-12-01T00:00:00Z".into(),
            body,
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chatsurface_model::Snapshot;

    fn fold(events: Vec<EventBody>) -> Snapshot {
        fold_in_memory(events).expect("generated events always fold")
    }

    #[test]
    fn a_generated_session_folds_and_has_the_asked_for_size() {
        let config = GeneratorConfig {
            messages: 3_000,
            threads: 120,
            batches: 40,
            seed: 7,
        };
        let snapshot = fold(generate(&config));
        assert_eq!(snapshot.messages.len(), 3_000);
        assert_eq!(snapshot.threads.len(), 120);
        assert_eq!(snapshot.batches.len(), 40);
        assert!(snapshot.open_questions() > 0, "some batches stay open");
        assert!(snapshot
            .threads
            .iter()
            .any(|thread| thread.status == ThreadStatus::Resolved));
    }

    #[test]
    fn a_broad_session_has_its_open_questions_and_nests_at_most_four_deep() {
        let config = GeneratorConfig {
            messages: 300,
            threads: 200,
            batches: 15,
            seed: 1,
        };
        let snapshot = fold(generate_breadth(&config));
        assert_eq!(snapshot.threads.len(), 200);
        assert_eq!(snapshot.batches.len(), 15);
        assert!((0..15)
            .all(|batch| snapshot.is_open_question(chatsurface_model::NodeRef::Batch(batch))));
        let roots = (0..200)
            .filter(|&thread| snapshot.parent_of(thread).is_none())
            .count();
        assert_eq!(roots, 20);
        let depth = |mut thread: usize| {
            let mut depth = 0;
            while let Some(parent) = snapshot.parent_of(thread) {
                thread = parent;
                depth += 1;
            }
            depth
        };
        assert_eq!((0..200).map(depth).max(), Some(4));
        let resolved = snapshot
            .threads
            .iter()
            .filter(|thread| thread.status == ThreadStatus::Resolved)
            .count();
        assert!((80..130).contains(&resolved), "{resolved} resolved");
    }

    #[test]
    fn the_same_seed_gives_the_same_session() {
        let config = GeneratorConfig {
            messages: 500,
            threads: 30,
            batches: 10,
            seed: 3,
        };
        assert_eq!(generate(&config), generate(&config));
        assert_ne!(
            generate(&config),
            generate(&GeneratorConfig { seed: 4, ..config })
        );
    }
}
