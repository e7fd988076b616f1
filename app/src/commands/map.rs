//! `chatsurface map LOG --out map.png|map.svg`: the session's branch map as a picture a
//! reviewer attaches to a review.

use super::{load, write_output};
use crate::cli::{MapArgs, PictureFormat};
use crate::error::AppError;
use chatsurface_compositor::{ChatSurfaceCompositor, ScaleFactor, Style};

/// The scales a PNG may be asked for.
const SCALE_RANGE: std::ops::RangeInclusive<f32> = 0.25..=4.0;

/// Writes the map of the log at `args.log` to `args.out`, in the format its name says.
pub(super) fn run(args: &MapArgs) -> Result<(), AppError> {
    if !SCALE_RANGE.contains(&args.scale) {
        return Err(AppError::Usage(format!(
            "--scale: must be between {} and {} (got {})",
            SCALE_RANGE.start(),
            SCALE_RANGE.end(),
            args.scale
        )));
    }
    let loaded = load(&args.log, args.format)?;
    let style = Style::new(args.look.theme.into(), args.look.density.into());
    let mut compositor = ChatSurfaceCompositor::new(args.look.fonts());
    let (path, format) = &args.out;
    let bytes = match format {
        PictureFormat::Svg => compositor.map_svg(&loaded.snapshot, &style).into_bytes(),
        PictureFormat::Png => {
            let asked = ScaleFactor(args.scale);
            let (pixmap, used) = compositor.map_png(&loaded.snapshot, &style, asked);
            if used.0 < asked.0 {
                tracing::warn!(
                    "{}: the map is too large for a picture at scale {}; drawn at {:.2} (an SVG has no such limit)",
                    path.display(),
                    asked.0,
                    used.0
                );
            }
            pixmap.encode_png().map_err(|error| {
                AppError::CannotCreate(format!(
                    "{}: cannot encode the PNG: {error}",
                    path.display()
                ))
            })?
        }
    };
    write_output(path, &bytes)
}
