//! The bridge's hook in Claude Code's settings (`.claude/settings.json`): added, found and
//! removed in the parsed JSON, keeping every other key and hook as it was.
//!
//! The hook is one matcher group under `hooks.PermissionRequest`, `{"matcher": "*", "hooks":
//! [{"type": "command", "command": "<chatsurface> hook claude-code", "timeout": …}]}`; a
//! command hook whose command ends in ` hook claude-code` is the bridge's, wherever the
//! binary lies. Installing twice changes nothing; uninstalling takes out only the bridge's hook
//! and the containers that held nothing else, so install then uninstall gives back the file
//! as it was. Reading and writing the file is the command's (`commands/install.rs`).

use serde_json::{json, Map, Value};
use std::path::Path;
use thiserror::Error;

/// What the hook command's arguments end with.
const HOOK_ARGS: &str = "hook claude-code";

/// The hook's time limit Claude Code is told, in seconds. The terminal's own prompt is up the
/// whole time, so a long limit only keeps the question on the surface as long as a human may
/// take; the hook gives up a little before it.
pub const HOOK_TIMEOUT_S: u64 = 3600;

/// Why a settings file cannot take the hook.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SettingsError {
    /// A key the hook goes under holds something else than the schema says.
    #[error("{field}: {expected}")]
    Shape {
        /// The key, as a dotted path.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
    },
}

/// What a change did to the settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The hook was added.
    Added,
    /// An older form of the hook (another binary's path, another limit) was replaced.
    Replaced,
    /// The hook was there as it is: nothing changed.
    Unchanged,
    /// The hook was removed.
    Removed,
    /// There was no hook to remove: nothing changed.
    Absent,
}

/// The shell command Claude Code runs: the binary's path, quoted for the shell where needed,
/// and the hook's arguments.
pub fn hook_command(binary: &Path) -> String {
    let path = binary.to_string_lossy();
    let quoted = shlex::try_quote(&path).unwrap_or(std::borrow::Cow::Borrowed("chatsurface"));
    format!("{quoted} {HOOK_ARGS}")
}

/// The matcher group the hook is.
fn group(command: &str) -> Value {
    json!({
        "matcher": "*",
        "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}],
    })
}

fn is_bridge_hook(hook: &Value) -> bool {
    hook.get("command")
        .and_then(Value::as_str)
        .is_some_and(|command| command.trim_end().ends_with(&format!(" {HOOK_ARGS}")))
}

/// The settings' `hooks.PermissionRequest` list, made where missing.
fn permission_groups(settings: &mut Value) -> Result<&mut Vec<Value>, SettingsError> {
    let top = settings.as_object_mut().ok_or(SettingsError::Shape {
        field: "(the file)",
        expected: "a JSON object",
    })?;
    let hooks = top
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or(SettingsError::Shape {
            field: "hooks",
            expected: "an object of hook events",
        })?;
    hooks
        .entry(super::permission::EVENT)
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or(SettingsError::Shape {
            field: "hooks.PermissionRequest",
            expected: "a list of matcher groups",
        })
}

/// Takes the bridge's hooks out of `groups`, dropping groups left with no hook; whether any
/// was there.
fn take_bridge_hooks(groups: &mut Vec<Value>) -> bool {
    let mut found = false;
    groups.retain_mut(|group| {
        let Some(hooks) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
            return true;
        };
        let before = hooks.len();
        hooks.retain(|hook| !is_bridge_hook(hook));
        found |= hooks.len() != before;
        hooks.len() == before || !hooks.is_empty()
    });
    found
}

/// Adds the hook running `command`, or replaces an older form of it.
pub fn install(settings: &mut Value, command: &str) -> Result<Change, SettingsError> {
    let wanted = group(command);
    let groups = permission_groups(settings)?;
    if groups.iter().any(|existing| existing == &wanted) {
        return Ok(Change::Unchanged);
    }
    let replaced = take_bridge_hooks(groups);
    groups.push(wanted);
    Ok(if replaced {
        Change::Replaced
    } else {
        Change::Added
    })
}

/// Removes the hook, and the `PermissionRequest` list and `hooks` object when it leaves them
/// empty.
pub fn uninstall(settings: &mut Value) -> Result<Change, SettingsError> {
    let Some(top) = settings.as_object_mut() else {
        return Err(SettingsError::Shape {
            field: "(the file)",
            expected: "a JSON object",
        });
    };
    let Some(hooks) = top.get_mut("hooks") else {
        return Ok(Change::Absent);
    };
    let Some(events) = hooks.as_object_mut() else {
        return Err(SettingsError::Shape {
            field: "hooks",
            expected: "an object of hook events",
        });
    };
    let Some(groups) = events
        .get_mut(super::permission::EVENT)
        .and_then(Value::as_array_mut)
    else {
        return Ok(Change::Absent);
    };
    if !take_bridge_hooks(groups) {
        return Ok(Change::Absent);
    }
    if groups.is_empty() {
        events.remove(super::permission::EVENT);
    }
    if events.is_empty() {
        top.remove("hooks");
    }
    Ok(Change::Removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn others() -> Value {
        json!({
            "model": "opus",
            "permissions": {"allow": ["Bash(ls:*)"]},
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}],
                "PermissionRequest": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "lint.sh"}]}],
            },
        })
    }

    #[test]
    fn install_keeps_other_hooks_and_twice_changes_nothing() {
        let mut settings = others();
        let command = hook_command(Path::new("/opt/chat surface/bin/chatsurface"));
        assert_eq!(
            command,
            "'/opt/chat surface/bin/chatsurface' hook claude-code"
        );
        assert_eq!(install(&mut settings, &command), Ok(Change::Added));
        let once = settings.clone();
        assert_eq!(install(&mut settings, &command), Ok(Change::Unchanged));
        assert_eq!(settings, once);
        let groups = settings["hooks"]["PermissionRequest"].as_array().unwrap();
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0]["hooks"][0]["command"], "lint.sh");
        assert_eq!(groups[1]["hooks"][0]["command"], command);
        assert_eq!(
            settings["hooks"]["PreToolUse"],
            others()["hooks"]["PreToolUse"]
        );
        assert_eq!(settings["model"], "opus");
    }

    #[test]
    fn uninstall_gives_back_the_file_as_it_was() {
        for original in [others(), json!({}), json!({"hooks": {"Stop": []}})] {
            let mut settings = original.clone();
            install(&mut settings, "/usr/bin/chatsurface hook claude-code").unwrap();
            assert_ne!(settings, original);
            assert_eq!(uninstall(&mut settings), Ok(Change::Removed));
            assert_eq!(settings, original);
            assert_eq!(uninstall(&mut settings), Ok(Change::Absent));
        }
    }

    #[test]
    fn a_moved_binary_replaces_the_old_hook() {
        let mut settings = json!({});
        install(&mut settings, "/old/chatsurface hook claude-code").unwrap();
        assert_eq!(
            install(&mut settings, "/new/chatsurface hook claude-code"),
            Ok(Change::Replaced)
        );
        let groups = settings["hooks"]["PermissionRequest"].as_array().unwrap();
        assert_eq!(groups.len(), 1);
        assert_eq!(
            groups[0]["hooks"][0]["command"],
            "/new/chatsurface hook claude-code"
        );
    }

    #[test]
    fn a_settings_file_of_another_shape_is_refused_by_field() {
        for (mut settings, field) in [
            (json!([1]), "(the file)"),
            (json!({"hooks": []}), "hooks"),
            (
                json!({"hooks": {"PermissionRequest": {}}}),
                "hooks.PermissionRequest",
            ),
        ] {
            match install(&mut settings, "x hook claude-code") {
                Err(SettingsError::Shape { field: named, .. }) => assert_eq!(named, field),
                other => panic!("{other:?}"),
            }
        }
    }
}
