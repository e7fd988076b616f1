//! The surface's own words (badges, buttons, hints, counts) in the session's language.
//!
//! A Russian session whose buttons say «Перезаписать» must not be framed by English chrome,
//! so every word the compositor writes itself comes from here, in English or Russian, with
//! each language's plural rules ("1 question", "2 questions"; «1 вопрос», «2 вопроса», «5
//! вопросов»). The language is read from the session's and threads' titles, never from
//! message text. This module owns words only: it must not know layout or colours.

use chatsurface_model::Snapshot;

/// A language the surface speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// Russian.
    Ru,
}

/// A fixed word or phrase of the surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    /// The badge of an open batch.
    Questions,
    /// The badge of an answered batch.
    Answered,
    /// The badge of an expired question.
    Expired,
    /// The badge of a withdrawn question.
    Withdrawn,
    /// The badge of a pending confirmation.
    Confirm,
    /// The badge of an accepted confirmation.
    Accepted,
    /// The badge of a declined confirmation.
    Declined,
    /// The badge of a pending confirmation in a summary.
    Pending,
    /// The badge of a decision.
    Decision,
    /// The title of a confirmation that has none.
    ConfirmDangerous,
    /// The label of a batch's general note.
    GeneralNote,
    /// The placeholder of the general note.
    GeneralNoteHint,
    /// The placeholder of a choice's own answer.
    OtherHint,
    /// The placeholder of a text answer.
    AnswerHint,
    /// The placeholder of a confirmation's comment.
    CommentHint,
    /// The submit button of a batch.
    Submit,
    /// The skip-all button of a batch.
    SkipAll,
    /// What the skip-all button does.
    SkipAllMeans,
    /// The keys of a batch card.
    BatchKeys,
    /// An item's label once skipped.
    ItemSkipped,
    /// An item's label once sent.
    ItemAnswered,
    /// An item's label while only drafted.
    ItemDrafted,
    /// The yes pill.
    Yes,
    /// The no pill.
    No,
    /// Nothing waits for the human.
    NothingAwaits,
    /// Nothing waits in the session shown.
    NothingHere,
    /// How to reach what waits elsewhere.
    GoThere,
    /// The word before the overview's counts.
    Overview,
    /// "open", after a count of threads.
    Open,
    /// The whole session is in view.
    WholeSession,
    /// The label of an attachment.
    Attachment,
    /// How to open an attachment.
    OpenAttachment,
    /// A question that expired.
    ExpiredNow,
    /// An empty thread.
    NothingYet,
    /// Who wrote a message: the human.
    RoleUser,
    /// Who wrote a message: the agent.
    RoleAgent,
    /// Who wrote a message: the system.
    RoleSystem,
    /// Who wrote a message: a tool.
    RoleTool,
    /// An item answered in one line.
    KindText,
    /// An item answered in several lines.
    KindMultiline,
    /// An item answered by picking one option.
    KindChoice,
    /// An item answered by picking several options.
    KindChoiceSeveral,
    /// An item answered by an option or the human's own words.
    KindChoiceOrOwn,
    /// An item answered yes or no.
    KindYesNo,
    /// The keys of the session switcher.
    SwitcherKeys,
    /// The switcher found no session matching what was typed.
    NoSessionMatches,
    /// The switcher is still reading the sessions.
    ReadingSessions,
    /// The switcher's mark on the session shown now.
    ShownNow,
    /// The inbox's heading.
    InboxTitle,
    /// The keys of the inbox.
    InboxKeys,
    /// The inbox when nothing waits anywhere.
    InboxEmpty,
    /// The inbox's mark on a question of the session shown now.
    InThisSession,
    /// The inbox's mark on a confirmation.
    ConfirmationMark,
    /// The inbox's mark on a clarification batch.
    QuestionMark,
    /// The branch map's heading.
    BranchMap,
    /// The keys that work on the branch map.
    MapKeys,
    /// The keys that work in the search bar.
    SearchKeys,
}

/// Something counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Noun {
    /// Unanswered items of open batches.
    OpenQuestion,
    /// Pending confirmations.
    Confirmation,
    /// Threads.
    Thread,
    /// Items of a batch.
    Question,
    /// Other sessions.
    OtherSession,
    /// Characters of a message.
    Character,
    /// Sessions.
    Session,
    /// Sessions, after "in" (the Russian locative: «в 2 сессиях»).
    InSession,
    /// Messages.
    Message,
    /// Decisions.
    Decision,
}

/// How many threads' titles decide a session's language. Intent reads the language every
/// frame, and a session's language is settled by its first threads: reading all the titles
/// of 10,000 threads cost more than the rest of a frame's layout.
pub(crate) const LANG_SAMPLE_THREADS: usize = 64;

impl Lang {
    /// The language of a session: Russian when its titles (the session's and its first
    /// [`LANG_SAMPLE_THREADS`] threads') hold more Cyrillic letters than Latin ones, else
    /// English.
    pub fn of(snapshot: &Snapshot) -> Lang {
        let titles = std::iter::once(snapshot.title()).chain(
            snapshot
                .threads
                .iter()
                .take(LANG_SAMPLE_THREADS)
                .map(|thread| thread.spec.title.as_str()),
        );
        let (mut cyrillic, mut latin) = (0usize, 0usize);
        for character in titles.flat_map(str::chars) {
            if ('\u{0400}'..='\u{04FF}').contains(&character) {
                cyrillic += 1;
            } else if character.is_ascii_alphabetic() {
                latin += 1;
            }
        }
        if cyrillic > latin {
            Lang::Ru
        } else {
            Lang::En
        }
    }

    /// A fixed word or phrase.
    pub fn word(self, word: Word) -> &'static str {
        use Word::*;
        match (self, word) {
            (Lang::En, Questions) => "? QUESTIONS",
            (Lang::Ru, Questions) => "? ВОПРОСЫ",
            (Lang::En, Answered) => "✓ ANSWERED",
            (Lang::Ru, Answered) => "✓ ОТВЕЧЕНО",
            (Lang::En, Expired) => "⌛ EXPIRED",
            (Lang::Ru, Expired) => "⌛ ИСТЕКЛО",
            (Lang::En, Withdrawn) => "↩ WITHDRAWN",
            (Lang::Ru, Withdrawn) => "↩ СНЯТО",
            (Lang::En, Confirm) => "⚠ CONFIRM",
            (Lang::Ru, Confirm) => "⚠ ПОДТВЕРДИТЕ",
            (Lang::En, Accepted) => "✓ ACCEPTED",
            (Lang::Ru, Accepted) => "✓ ПОДТВЕРЖДЕНО",
            (Lang::En, Declined) => "✗ DECLINED",
            (Lang::Ru, Declined) => "✗ ОТКЛОНЕНО",
            (Lang::En, Pending) => "⚠ PENDING",
            (Lang::Ru, Pending) => "⚠ ЖДЁТ",
            (Lang::En, Decision) => "✓ DECISION",
            (Lang::Ru, Decision) => "✓ РЕШЕНИЕ",
            (Lang::En, ConfirmDangerous) => "Confirm a dangerous action",
            (Lang::Ru, ConfirmDangerous) => "Подтвердите опасное действие",
            (Lang::En, GeneralNote) => "General note",
            (Lang::Ru, GeneralNote) => "Общий комментарий",
            (Lang::En, GeneralNoteHint) => "Anything else the agent should know…",
            (Lang::Ru, GeneralNoteHint) => "Что ещё стоит знать агенту…",
            (Lang::En, OtherHint) => "Other: type your own answer…",
            (Lang::Ru, OtherHint) => "Другое: свой ответ…",
            (Lang::En, AnswerHint) => "Type an answer…",
            (Lang::Ru, AnswerHint) => "Введите ответ…",
            (Lang::En, CommentHint) => "Comment (optional): type to add one",
            (Lang::Ru, CommentHint) => "Комментарий (необязательно): начните печатать",
            (Lang::En, Submit) => "Submit",
            (Lang::Ru, Submit) => "Отправить",
            (Lang::En, SkipAll) => "Skip all",
            (Lang::Ru, SkipAll) => "Пропустить все",
            (Lang::En, SkipAllMeans) => "sends every item as skipped",
            (Lang::Ru, SkipAllMeans) => "все пункты уйдут пропущенными",
            (Lang::En, BatchKeys) => {
                "o next question · Tab next item · 1–9 pick · y / n · s skip item"
            }
            (Lang::Ru, BatchKeys) => {
                "o след. вопрос · Tab след. пункт · 1–9 выбор · y / n · s пропустить пункт"
            }
            (Lang::En, ItemSkipped) => "skipped",
            (Lang::Ru, ItemSkipped) => "пропущен",
            (Lang::En, ItemAnswered) => "answered",
            (Lang::Ru, ItemAnswered) => "отвечен",
            (Lang::En, ItemDrafted) => "drafted",
            (Lang::Ru, ItemDrafted) => "черновик",
            (Lang::En, Yes) => "Yes",
            (Lang::Ru, Yes) => "Да",
            (Lang::En, No) => "No",
            (Lang::Ru, No) => "Нет",
            (Lang::En, NothingAwaits) => "Nothing awaits you",
            (Lang::Ru, NothingAwaits) => "Ничего не ждёт",
            (Lang::En, NothingHere) => "Nothing here",
            (Lang::Ru, NothingHere) => "Здесь ничего",
            (Lang::En, GoThere) => "o goes there",
            (Lang::Ru, GoThere) => "o — перейти",
            (Lang::En, Overview) => "OVERVIEW",
            (Lang::Ru, Overview) => "ОБЗОР",
            (Lang::En, Open) => "open",
            (Lang::Ru, Open) => "открыто",
            (Lang::En, WholeSession) => "whole session",
            (Lang::Ru, WholeSession) => "вся сессия",
            (Lang::En, Attachment) => "Attachment",
            (Lang::Ru, Attachment) => "Вложение",
            (Lang::En, OpenAttachment) => "Ctrl+O or click to open",
            (Lang::Ru, OpenAttachment) => "Ctrl+O или щелчок — открыть",
            (Lang::En, ExpiredNow) => "⌛ expired",
            (Lang::Ru, ExpiredNow) => "⌛ истекло",
            (Lang::En, NothingYet) => "Nothing here yet: the agent has not written in this thread.",
            (Lang::Ru, NothingYet) => "Пока пусто: агент ещё не писал в этой ветке.",
            (Lang::En, RoleUser) => "You",
            (Lang::Ru, RoleUser) => "Вы",
            (Lang::En, RoleAgent) => "Agent",
            (Lang::Ru, RoleAgent) => "Агент",
            (Lang::En, RoleSystem) => "System",
            (Lang::Ru, RoleSystem) => "Система",
            (Lang::En, RoleTool) => "Tool",
            (Lang::Ru, RoleTool) => "Инструмент",
            (Lang::En, KindText) => "text",
            (Lang::Ru, KindText) => "текст",
            (Lang::En, KindMultiline) => "multi-line text",
            (Lang::Ru, KindMultiline) => "многострочный текст",
            (Lang::En, KindChoice) => "choice",
            (Lang::Ru, KindChoice) => "выбор",
            (Lang::En, KindChoiceSeveral) => "choice · pick several",
            (Lang::Ru, KindChoiceSeveral) => "выбор · несколько",
            (Lang::En, KindChoiceOrOwn) => "choice · or your own",
            (Lang::Ru, KindChoiceOrOwn) => "выбор · или свой ответ",
            (Lang::En, KindYesNo) => "yes / no",
            (Lang::Ru, KindYesNo) => "да / нет",
            (Lang::En, SwitcherKeys) => "type to filter · ↑↓ choose · Enter open · Esc close",
            (Lang::Ru, SwitcherKeys) => {
                "печатайте для отбора · ↑↓ выбор · Enter открыть · Esc закрыть"
            }
            (Lang::En, NoSessionMatches) => "No session matches",
            (Lang::Ru, NoSessionMatches) => "Нет подходящих сессий",
            (Lang::En, ReadingSessions) => "Reading the sessions…",
            (Lang::Ru, ReadingSessions) => "Читаю сессии…",
            (Lang::En, ShownNow) => "shown",
            (Lang::Ru, ShownNow) => "открыта",
            (Lang::En, InboxTitle) => "Waiting for you",
            (Lang::Ru, InboxTitle) => "Ждут вас",
            (Lang::En, InboxKeys) => "oldest first · ↑↓ j k choose · Enter answer · Esc close",
            (Lang::Ru, InboxKeys) => "сначала давние · ↑↓ j k выбор · Enter ответить · Esc закрыть",
            (Lang::En, InboxEmpty) => "Nothing waits in any session",
            (Lang::Ru, InboxEmpty) => "Ни в одной сессии ничего не ждёт",
            (Lang::En, InThisSession) => "this session",
            (Lang::Ru, InThisSession) => "эта сессия",
            (Lang::En, ConfirmationMark) => "confirm",
            (Lang::Ru, ConfirmationMark) => "подтвердить",
            (Lang::En, QuestionMark) => "question",
            (Lang::Ru, QuestionMark) => "вопрос",
            (Lang::En, BranchMap) => "Branch map",
            (Lang::Ru, BranchMap) => "Карта веток",
            (Lang::En, SearchKeys) => "Enter older · Shift+Enter newer · Esc close",
            (Lang::Ru, SearchKeys) => "Enter старше · Shift+Enter новее · Esc закрыть",
            (Lang::En, MapKeys) => {
                "↑↓ j k move · ← parent · → branch · Enter open · + − zoom · 0 fit · drag or Ctrl+wheel · Esc close"
            }
            (Lang::Ru, MapKeys) => {
                "↑↓ j k ход · ← родитель · → ветка · Enter открыть · + − масштаб · 0 целиком · тащить или Ctrl+колесо · Esc закрыть"
            }
        }
    }

    /// A count with its noun in the right plural form: "1 open question", «3 вопроса».
    pub fn count(self, count: usize, noun: Noun) -> String {
        let forms: [&str; 3] = match (self, noun) {
            (Lang::En, Noun::OpenQuestion) => ["open question", "open questions", ""],
            (Lang::Ru, Noun::OpenQuestion) => {
                ["открытый вопрос", "открытых вопроса", "открытых вопросов"]
            }
            (Lang::En, Noun::Confirmation) => ["confirmation", "confirmations", ""],
            (Lang::Ru, Noun::Confirmation) => ["подтверждение", "подтверждения", "подтверждений"],
            (Lang::En, Noun::Thread) => ["thread", "threads", ""],
            (Lang::Ru, Noun::Thread) => ["ветка", "ветки", "веток"],
            (Lang::En, Noun::Question) => ["question", "questions", ""],
            (Lang::Ru, Noun::Question) => ["вопрос", "вопроса", "вопросов"],
            (Lang::En, Noun::OtherSession) => ["other session", "other sessions", ""],
            (Lang::Ru, Noun::OtherSession) => ["другой сессии", "других сессиях", "других сессиях"],
            (Lang::En, Noun::Character) => ["character", "characters", ""],
            (Lang::Ru, Noun::Character) => ["знак", "знака", "знаков"],
            (Lang::En, Noun::Session) => ["session", "sessions", ""],
            (Lang::Ru, Noun::Session) => ["сессия", "сессии", "сессий"],
            (Lang::En, Noun::InSession) => ["session", "sessions", ""],
            (Lang::Ru, Noun::InSession) => ["сессии", "сессиях", "сессиях"],
            (Lang::En, Noun::Message) => ["message", "messages", ""],
            (Lang::Ru, Noun::Message) => ["сообщение", "сообщения", "сообщений"],
            (Lang::En, Noun::Decision) => ["decision", "decisions", ""],
            (Lang::Ru, Noun::Decision) => ["решение", "решения", "решений"],
        };
        let form = match self {
            Lang::En => usize::from(count != 1),
            Lang::Ru => russian_form(count),
        };
        format!("{count} {}", forms[form])
    }

    /// "waiting in 2 other sessions".
    pub fn waiting_in(self, questions: usize, sessions: usize) -> String {
        match self {
            Lang::En => format!(
                "{questions} waiting in {}",
                self.count(sessions, Noun::OtherSession)
            ),
            Lang::Ru => format!(
                "{questions} ждут в {}",
                self.count(sessions, Noun::OtherSession)
            ),
        }
    }

    /// An overview row standing for rows left out: "+ 13 more threads (6 resolved)".
    pub fn more(self, count: usize, noun: Noun, resolved: Option<usize>) -> String {
        let counted = self.count(count, noun);
        match (self, resolved) {
            (Lang::En, Some(resolved)) => format!(
                "+ {count} more {} ({resolved} resolved)",
                counted_noun(&counted)
            ),
            (Lang::En, None) => format!("+ {count} more {}", counted_noun(&counted)),
            (Lang::Ru, Some(resolved)) => format!("+ ещё {counted} ({resolved} завершено)"),
            (Lang::Ru, None) => format!("+ ещё {counted}"),
        }
    }

    /// The pill over the transcript's bottom edge.
    pub fn more_below(self, count: usize) -> String {
        match self {
            Lang::En => format!("↓ {count} more below · End or click: newest"),
            Lang::Ru => format!("↓ ещё {count} ниже · End или щелчок: к новым"),
        }
    }

    /// "3 waiting in 2 sessions": every question waiting, across the sessions followed.
    pub fn waiting_across(self, questions: usize, sessions: usize) -> String {
        match self {
            Lang::En => format!(
                "{questions} waiting in {}",
                self.count(sessions, Noun::InSession)
            ),
            Lang::Ru => format!(
                "{questions} ждут в {}",
                self.count(sessions, Noun::InSession)
            ),
        }
    }

    /// "waited 4 min" / «ждёт 4 мин».
    pub fn waited(self, duration: std::time::Duration) -> String {
        let duration = duration_words(duration.as_secs_f64());
        match self {
            Lang::En => format!("waited {duration}"),
            Lang::Ru => format!("ждёт {duration}"),
        }
    }

    /// "here", after what waits in the session shown.
    pub fn here(self) -> &'static str {
        match self {
            Lang::En => "here",
            Lang::Ru => "здесь",
        }
    }

    /// "expires in 42 s" / "expires after 60 s".
    pub fn expires(self, live: bool, duration: &str) -> String {
        match (self, live) {
            (Lang::En, true) => format!("⌛ expires in {duration}"),
            (Lang::Ru, true) => format!("⌛ истекает через {duration}"),
            (Lang::En, false) => format!("expires after {duration}"),
            (Lang::Ru, false) => format!("истекает через {duration}"),
        }
    }

    /// Where a branch left its parent: "from message 12" (the parent's messages before it).
    pub fn branched_after(self, messages_before: usize) -> String {
        match (self, messages_before) {
            (Lang::En, 0) => "from the start".to_owned(),
            (Lang::Ru, 0) => "с начала".to_owned(),
            (Lang::En, count) => format!("from message {count}"),
            (Lang::Ru, count) => format!("от сообщения {count}"),
        }
    }

    /// Where the search stands: "3 of 12", or that nothing matches.
    pub fn search_matches(self, current: Option<usize>, total: usize) -> String {
        match (self, total) {
            (Lang::En, 0) => "no match".to_owned(),
            (Lang::Ru, 0) => "нет совпадений".to_owned(),
            (Lang::En, _) => format!("{} of {total}", current.map_or(0, |at| at + 1)),
            (Lang::Ru, _) => format!("{} из {total}", current.map_or(0, |at| at + 1)),
        }
    }

    /// The fold line of a long message.
    pub fn show_more(self, characters: &str) -> String {
        match self {
            Lang::En => {
                format!("▸ Show more ({characters} characters in all) · click or Enter expands")
            }
            Lang::Ru => format!("▸ Показать всё ({characters} знаков) · щелчок или Enter"),
        }
    }
}

/// The noun of a counted phrase ("threads" of "13 threads").
fn counted_noun(counted: &str) -> &str {
    counted.split_once(' ').map_or(counted, |(_, noun)| noun)
}

/// Which of the three Russian plural forms a count takes: 1, 21 → 0; 2–4, 22 → 1; else 2.
fn russian_form(count: usize) -> usize {
    let (tens, ones) = (count % 100, count % 10);
    if (11..=14).contains(&tens) {
        2
    } else if ones == 1 {
        0
    } else if (2..=4).contains(&ones) {
        1
    } else {
        2
    }
}

/// A length of time in the surface's short units: "42 s", "7 min", "3 h".
pub(crate) fn duration_words(seconds: f64) -> String {
    let seconds = seconds.max(0.0).round() as u64;
    match seconds {
        0..=119 => format!("{seconds} s"),
        120..=7199 => format!("{} min", seconds / 60),
        _ => format!("{} h", seconds / 3600),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_take_each_languages_plural() {
        assert_eq!(Lang::En.count(1, Noun::Thread), "1 thread");
        assert_eq!(Lang::En.count(3, Noun::Thread), "3 threads");
        assert_eq!(Lang::En.count(0, Noun::OpenQuestion), "0 open questions");
        assert_eq!(Lang::Ru.count(1, Noun::Question), "1 вопрос");
        assert_eq!(Lang::Ru.count(3, Noun::Question), "3 вопроса");
        assert_eq!(Lang::Ru.count(5, Noun::Question), "5 вопросов");
        assert_eq!(Lang::Ru.count(11, Noun::Question), "11 вопросов");
        assert_eq!(Lang::Ru.count(21, Noun::Question), "21 вопрос");
        assert_eq!(Lang::Ru.count(22, Noun::Thread), "22 ветки");
        assert_eq!(
            Lang::En.more(13, Noun::Thread, Some(6)),
            "+ 13 more threads (6 resolved)"
        );
        assert_eq!(
            Lang::En.more(1, Noun::OpenQuestion, None),
            "+ 1 more open question"
        );
        assert_eq!(
            Lang::Ru.more(5, Noun::Thread, Some(2)),
            "+ ещё 5 веток (2 завершено)"
        );
    }

    #[test]
    fn a_session_titled_in_russian_speaks_russian() {
        let mut snapshot = Snapshot::default();
        assert_eq!(Lang::of(&snapshot), Lang::En);
        snapshot.session = Some(chatsurface_model::Session {
            id: "s".into(),
            title: "Правка ADR-0031: агентский чат".into(),
            agent: None,
            created_by: None,
        });
        assert_eq!(Lang::of(&snapshot), Lang::Ru);
    }

    #[test]
    fn the_first_threads_decide_the_language_not_the_ten_thousandth() {
        let mut events = Vec::new();
        for index in 0..LANG_SAMPLE_THREADS {
            events.push(format!(
                r#"{{"type":"thread_opened","thread":{{"id":"r{index}","parent":null,"title":"Журнал событий","kind":"topic"}}}}"#
            ));
        }
        for index in 0..1_000 {
            events.push(format!(
                r#"{{"type":"thread_opened","thread":{{"id":"e{index}","parent":null,"title":"An English title, much longer","kind":"topic"}}}}"#
            ));
        }
        let snapshot = crate::test_support::snapshot_from(&events);
        assert_eq!(Lang::of(&snapshot), Lang::Ru);
    }
}
