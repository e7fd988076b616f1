//! Retained layers: what the window keeps on the GPU between frames, and when it repaints.
//!
//! A frame from the compositor is split three ways: the chrome (panels, header, overview),
//! the transcript cards, and overlays (the "more below" pill). Each is painted by the CPU
//! rasteriser into a texture and kept. The chrome and the overlays are repainted only when
//! their display list's fingerprint changes; a card only when layout hands out a new card
//! layout (its content, width, style or working answer changed). Scrolling therefore moves
//! textures and paints only cards that come into view. Focus and hover are drawn as solid
//! rectangles over the layers, so moving them repaints nothing.

use super::gpu::{DrawItem, Gpu, LayerTexture};
use chatsurface_compositor::ChatSurfaceCompositor;
use chatsurface_compositor::Color;
use chatsurface_compositor::PaintId;
use chatsurface_compositor::{CardLayout, FrameLayout};
use chatsurface_compositor::{Rect, ScaleFactor};
use std::collections::HashMap;
use std::sync::Arc;

/// One card's texture and the layout it was painted from (held so its address stays unique).
#[derive(Debug)]
struct CardLayer {
    _layout: Arc<CardLayout>,
    texture: LayerTexture,
    used_in_frame: u64,
}

/// The textures kept between frames.
#[derive(Debug, Default)]
pub(super) struct RetainedLayers {
    scale_bits: u32,
    chrome: Option<(u64, LayerTexture)>,
    overlay: Option<(u64, Rect, LayerTexture)>,
    cards: HashMap<PaintId, CardLayer>,
    frame: u64,
}

/// A solid rectangle drawn over the layers.
#[derive(Clone, Copy, Debug)]
pub(super) struct Highlight {
    /// Where, in logical pixels.
    pub rect: Rect,
    /// Its colour.
    pub color: Color,
    /// Only its outline of this width, in logical pixels, or filled when `None`.
    pub outline: Option<f32>,
}

impl RetainedLayers {
    /// Brings the textures up to date with a frame; returns how many layers were painted.
    pub(super) fn update(
        &mut self,
        gpu: &Gpu,
        compositor: &mut ChatSurfaceCompositor,
        frame: &mut FrameLayout,
        scale: ScaleFactor,
    ) -> usize {
        if self.scale_bits != scale.0.to_bits() {
            *self = RetainedLayers {
                scale_bits: scale.0.to_bits(),
                ..RetainedLayers::default()
            };
        }
        self.frame += 1;
        let mut painted = 0;
        let overlay = frame.scene.split_overlay();
        let chrome_print = frame.scene.fingerprint();
        if self
            .chrome
            .as_ref()
            .is_none_or(|(print, _)| *print != chrome_print)
        {
            let pixmap = compositor.paint_scene(&frame.scene, scale);
            self.chrome = Some((chrome_print, gpu.upload(&pixmap)));
            painted += 1;
        }
        let print = overlay.fingerprint();
        if self
            .overlay
            .as_ref()
            .is_none_or(|(old, _, _)| *old != print)
        {
            self.overlay = overlay.cropped_to_content().map(|(bounds, cropped)| {
                painted += 1;
                let pixmap = compositor.paint_scene(&cropped, scale);
                (print, bounds, gpu.upload(&pixmap))
            });
        }
        let width = frame.regions.transcript.width;
        for card in &frame.cards {
            let key = card.layout.id;
            let current = self.frame;
            match self.cards.get_mut(&key) {
                Some(layer) => layer.used_in_frame = current,
                None => {
                    let pixmap = compositor.paint_card(&card.layout, width, scale);
                    self.cards.insert(
                        key,
                        CardLayer {
                            _layout: card.layout.clone(),
                            texture: gpu.upload(&pixmap),
                            used_in_frame: current,
                        },
                    );
                    painted += 1;
                }
            }
        }
        let current = self.frame;
        self.cards.retain(|_, layer| layer.used_in_frame == current);
        painted
    }

    /// Bytes of GPU memory the layers hold.
    pub(super) fn bytes(&self) -> u64 {
        self.chrome
            .iter()
            .map(|(_, texture)| texture.bytes())
            .sum::<u64>()
            + self
                .overlay
                .iter()
                .map(|(_, _, texture)| texture.bytes())
                .sum::<u64>()
            + self
                .cards
                .values()
                .map(|layer| layer.texture.bytes())
                .sum::<u64>()
    }

    /// The draw list for a frame: chrome, cards clipped to the transcript, highlights, then
    /// overlays.
    pub(super) fn draw_list<'a>(
        &'a self,
        gpu: &'a Gpu,
        frame: &FrameLayout,
        scale: ScaleFactor,
        highlights: &[Highlight],
    ) -> Vec<DrawItem<'a>> {
        let white = [1.0; 4];
        let mut items = Vec::new();
        let whole = |texture: &'a LayerTexture| DrawItem {
            layer: texture,
            rect: [0.0, 0.0, texture.width as f32, texture.height as f32],
            color: white,
            scissor: None,
        };
        if let Some((_, chrome)) = &self.chrome {
            items.push(whole(chrome));
        }
        let scissor = frame
            .regions
            .transcript
            .to_device(scale)
            .map(|edge| edge.max(0.0) as u32);
        for card in &frame.cards {
            if let Some(layer) = self.cards.get(&card.layout.id) {
                let [x, y] = card.origin.to_device(scale);
                items.push(DrawItem {
                    layer: &layer.texture,
                    rect: [
                        x,
                        y,
                        layer.texture.width as f32,
                        layer.texture.height as f32,
                    ],
                    color: white,
                    scissor: Some(scissor),
                });
            }
        }
        for highlight in highlights {
            let color = premultiplied(highlight.color);
            let [x, y, w, h] = highlight.rect.to_device(scale);
            let rects = match highlight.outline {
                None => vec![[x, y, w, h]],
                Some(width) => {
                    let t = (width * scale.0).round().max(1.0);
                    vec![
                        [x, y, w, t],
                        [x, y + h - t, w, t],
                        [x, y, t, h],
                        [x + w - t, y, t, h],
                    ]
                }
            };
            for rect in rects {
                items.push(DrawItem {
                    layer: gpu.white(),
                    rect,
                    color,
                    scissor: Some(scissor),
                });
            }
        }
        if let Some((_, bounds, overlay)) = &self.overlay {
            let [x, y, _, _] = bounds.to_device(scale);
            items.push(DrawItem {
                layer: overlay,
                rect: [x, y, overlay.width as f32, overlay.height as f32],
                color: white,
                scissor: None,
            });
        }
        items
    }
}

/// A colour as the shader multiplies it: 0–1, premultiplied by its opacity.
pub(super) fn premultiplied(color: Color) -> [f32; 4] {
    let a = f32::from(color.a) / 255.0;
    [
        f32::from(color.r) / 255.0 * a,
        f32::from(color.g) / 255.0 * a,
        f32::from(color.b) / 255.0 * a,
        a,
    ]
}
