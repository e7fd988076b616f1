//! The GPU side of the window: a wgpu surface, layer textures and one compositing pipeline.
//!
//! Everything the window shows is a layer: a texture painted once by the CPU rasteriser and
//! then only moved and blended here (`shaders/layers.wgsl`). A frame is a list of [`DrawItem`]s
//! (a layer, where it goes, an optional scissor), drawn in order with premultiplied "over"
//! blending. This module knows nothing of cards or sessions; it owns the device, the surface
//! and the textures.

use std::sync::Arc;
use winit::window::Window;

/// One rectangle to draw, as the shader reads it.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct Instance {
    rect: [f32; 4],
    uv: [f32; 4],
    color: [f32; 4],
}

/// A texture holding one rasterised layer.
#[derive(Debug)]
pub(super) struct LayerTexture {
    texture: wgpu::Texture,
    group: wgpu::BindGroup,
    /// Its width in device pixels.
    pub width: u32,
    /// Its height in device pixels.
    pub height: u32,
}

impl LayerTexture {
    /// Its size in bytes on the GPU.
    pub(super) fn bytes(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height) * 4
    }
}

/// One thing to draw: a layer at a place, or a solid rectangle (with `layer` the white one).
#[derive(Clone, Copy, Debug)]
pub(super) struct DrawItem<'a> {
    /// The texture.
    pub layer: &'a LayerTexture,
    /// Left, top, width, height in device pixels.
    pub rect: [f32; 4],
    /// Premultiplied colour multiplied into the texels (white for a layer as painted).
    pub color: [f32; 4],
    /// Nothing outside this rectangle (left, top, width, height in device pixels) is drawn.
    pub scissor: Option<[u32; 4]>,
}

/// The device, the surface and the compositing pipeline.
pub(super) struct Gpu {
    surface: wgpu::Surface<'static>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    config: wgpu::SurfaceConfiguration,
    pipeline: wgpu::RenderPipeline,
    viewport: wgpu::Buffer,
    viewport_group: wgpu::BindGroup,
    layer_layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    instances: wgpu::Buffer,
    instance_capacity: usize,
    white: LayerTexture,
    /// The adapter's name and backend, for diagnostics.
    pub adapter: String,
    /// The largest texture side the device takes.
    pub max_texture_side: u32,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("adapter", &self.adapter)
            .finish()
    }
}

const INSTANCE_ATTRIBUTES: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![0 => Float32x4, 1 => Float32x4, 2 => Float32x4];

impl Gpu {
    /// Opens the GPU for a window. The error is one line for the user.
    pub(super) fn new(window: Arc<Window>) -> Result<Gpu, String> {
        let size = window.inner_size();
        let instance = wgpu::Instance::new(
            wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(window.clone())),
        );
        let surface = instance
            .create_surface(window)
            .map_err(|error| format!("cannot create a GPU surface for the window: {error}"))?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..wgpu::RequestAdapterOptions::default()
        }))
        .map_err(|error| format!("no GPU adapter can present to this window: {error}"))?;
        let info = adapter.get_info();
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("chatsurface"),
            required_limits: wgpu::Limits::downlevel_defaults().using_resolution(limits.clone()),
            ..wgpu::DeviceDescriptor::default()
        }))
        .map_err(|error| format!("cannot open the GPU device: {error}"))?;
        let mut config = surface
            .get_default_config(&adapter, size.width.max(1), size.height.max(1))
            .ok_or("the GPU adapter cannot present to this window")?;
        // Layers hold sRGB-encoded pixels already: a non-sRGB surface passes them through.
        let caps = surface.get_capabilities(&adapter);
        if let Some(format) = caps.formats.iter().find(|format| !format.is_srgb()) {
            config.format = *format;
        }
        config.present_mode = wgpu::PresentMode::AutoVsync;
        if caps.alpha_modes.contains(&wgpu::CompositeAlphaMode::Opaque) {
            config.alpha_mode = wgpu::CompositeAlphaMode::Opaque;
        }
        surface.configure(&device, &config);

        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("layers.wgsl"),
            source: wgpu::ShaderSource::Wgsl(include_str!("../../../shaders/layers.wgsl").into()),
        });
        let viewport_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("viewport"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let layer_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("layer"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("layers"),
            bind_group_layouts: &[Some(&viewport_layout), Some(&layer_layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("layers"),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("vs_main"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<Instance>() as wgpu::BufferAddress,
                    step_mode: wgpu::VertexStepMode::Instance,
                    attributes: &INSTANCE_ATTRIBUTES,
                })],
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleStrip,
                ..wgpu::PrimitiveState::default()
            },
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some("fs_main"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: config.format,
                    blend: Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        let viewport = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("viewport"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let viewport_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("viewport"),
            layout: &viewport_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: viewport.as_entire_binding(),
            }],
        });
        // Layers are drawn at whole device pixels, one texel per pixel: nearest keeps text sharp.
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("layers"),
            ..wgpu::SamplerDescriptor::default()
        });
        let instance_capacity = 256;
        let instances = Self::instance_buffer(&device, instance_capacity);
        let white = Self::texture(&device, &queue, &layer_layout, &sampler, 1, 1, &[255; 4]);
        Ok(Gpu {
            surface,
            device,
            queue,
            config,
            pipeline,
            viewport,
            viewport_group,
            layer_layout,
            sampler,
            instances,
            instance_capacity,
            white,
            adapter: format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type),
            max_texture_side: limits.max_texture_dimension_2d,
        })
    }

    fn instance_buffer(device: &wgpu::Device, capacity: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("instances"),
            size: (capacity * std::mem::size_of::<Instance>()) as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    fn texture(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        layout: &wgpu::BindGroupLayout,
        sampler: &wgpu::Sampler,
        width: u32,
        height: u32,
        rgba: &[u8],
    ) -> LayerTexture {
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("layer"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let layer = LayerTexture {
            group: device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("layer"),
                layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(
                            &texture.create_view(&wgpu::TextureViewDescriptor::default()),
                        ),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::Sampler(sampler),
                    },
                ],
            }),
            texture,
            width,
            height,
        };
        write(queue, &layer, rgba);
        layer
    }

    /// The 1×1 white layer that solid rectangles are drawn with.
    pub(super) fn white(&self) -> &LayerTexture {
        &self.white
    }

    /// Uploads premultiplied RGBA pixels as a new layer, cut to the device's largest texture.
    pub(super) fn upload(&self, pixmap: &tiny_skia::Pixmap) -> LayerTexture {
        let (width, height) = (
            pixmap.width().min(self.max_texture_side),
            pixmap.height().min(self.max_texture_side),
        );
        let rows = if width == pixmap.width() {
            std::borrow::Cow::Borrowed(&pixmap.data()[..(width * height * 4) as usize])
        } else {
            let stride = pixmap.width() as usize * 4;
            std::borrow::Cow::Owned(
                pixmap
                    .data()
                    .chunks(stride)
                    .take(height as usize)
                    .flat_map(|row| &row[..width as usize * 4])
                    .copied()
                    .collect(),
            )
        };
        Self::texture(
            &self.device,
            &self.queue,
            &self.layer_layout,
            &self.sampler,
            width,
            height,
            &rows,
        )
    }

    /// The surface size in device pixels.
    pub(super) fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// Resizes the surface.
    pub(super) fn resize(&mut self, width: u32, height: u32) {
        self.config.width = width.clamp(1, self.max_texture_side);
        self.config.height = height.clamp(1, self.max_texture_side);
        self.surface.configure(&self.device, &self.config);
    }

    /// Makes room for a frame of up to `count` draw items (call before building the list).
    pub(super) fn reserve(&mut self, count: usize) {
        if count > self.instance_capacity {
            self.instance_capacity = count.next_power_of_two();
            self.instances = Self::instance_buffer(&self.device, self.instance_capacity);
        }
    }

    /// Draws `items` in order over `clear` and presents the frame (vsynced). Items past the
    /// room made by [`Gpu::reserve`] are left out.
    pub(super) fn present(&self, clear: [f64; 4], items: &[DrawItem]) -> Result<(), String> {
        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(frame)
            | wgpu::CurrentSurfaceTexture::Suboptimal(frame) => frame,
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                return Ok(())
            }
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.device, &self.config);
                return Ok(());
            }
            other => return Err(format!("the GPU surface failed: {other:?}")),
        };
        let (width, height) = (self.config.width as f32, self.config.height as f32);
        self.queue.write_buffer(
            &self.viewport,
            0,
            bytemuck::cast_slice(&[width, height, 0.0, 0.0]),
        );
        let items = &items[..items.len().min(self.instance_capacity)];
        let instances: Vec<Instance> = items
            .iter()
            .map(|item| Instance {
                rect: item.rect,
                uv: [0.0, 0.0, 1.0, 1.0],
                color: item.color,
            })
            .collect();
        if !instances.is_empty() {
            self.queue
                .write_buffer(&self.instances, 0, bytemuck::cast_slice(&instances));
        }
        let view = frame
            .texture
            .create_view(&wgpu::TextureViewDescriptor::default());
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("frame"),
            });
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("layers"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: clear[0],
                            g: clear[1],
                            b: clear[2],
                            a: clear[3],
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.viewport_group, &[]);
            pass.set_vertex_buffer(0, self.instances.slice(..));
            let full = [0, 0, self.config.width, self.config.height];
            for (index, item) in items.iter().enumerate() {
                let [x, y, w, h] = item.scissor.unwrap_or(full);
                let x = x.min(self.config.width);
                let y = y.min(self.config.height);
                let w = w.min(self.config.width - x);
                let h = h.min(self.config.height - y);
                if w == 0 || h == 0 {
                    continue;
                }
                pass.set_scissor_rect(x, y, w, h);
                pass.set_bind_group(1, &item.layer.group, &[]);
                let index = index as u32;
                pass.draw(0..4, index..index + 1);
            }
        }
        self.queue.submit([encoder.finish()]);
        self.queue.present(frame);
        Ok(())
    }
}

fn write(queue: &wgpu::Queue, layer: &LayerTexture, rgba: &[u8]) {
    queue.write_texture(
        wgpu::TexelCopyTextureInfo {
            texture: &layer.texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        rgba,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(layer.width * 4),
            rows_per_image: Some(layer.height),
        },
        wgpu::Extent3d {
            width: layer.width,
            height: layer.height,
            depth_or_array_layers: 1,
        },
    );
}
