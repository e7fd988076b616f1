//! `chatsurface render LOG --out frame.png`: the frame the window shows, as a PNG.

use super::{load, write_output};
use crate::cli::RenderArgs;
use crate::error::AppError;
use chatsurface_compositor::ChatSurfaceCompositor;
use chatsurface_compositor::{px, ScaleFactor};
use chatsurface_compositor::{IntentRequest, Viewport};
use chatsurface_model::ThreadId;

/// Renders one frame to a PNG file.
pub(super) fn run(args: &RenderArgs) -> Result<(), AppError> {
    let loaded = load(&args.log, args.format)?;
    let snapshot = &loaded.snapshot;
    let mut request = IntentRequest {
        viewport: Viewport {
            width: px(args.width as f32),
            height: px(args.height as f32),
            scale: ScaleFactor(args.scale),
        },
        focus: args.focus.as_deref().map(ThreadId::from),
        theme: args.look.theme.into(),
        density: args.look.density.into(),
        ..IntentRequest::default()
    };
    let mut compositor = ChatSurfaceCompositor::new(args.look.fonts());
    let usage = |error: chatsurface_compositor::IntentError| AppError::Usage(format!("--{error}"));
    if args.scroll_up > 0 {
        request.scroll = compositor
            .scroll(snapshot, &request, px(-(args.scroll_up as f32)))
            .map_err(usage)?;
    }
    let (pixmap, _info) = compositor.compose(snapshot, &request).map_err(usage)?;
    let png = pixmap.encode_png().map_err(|error| {
        AppError::CannotCreate(format!(
            "{}: cannot encode the PNG: {error}",
            args.out.display()
        ))
    })?;
    write_output(&args.out, &png)
}
