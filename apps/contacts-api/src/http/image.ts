import { fileTypeFromBuffer } from 'file-type';
import type { ContactImageInput } from '../domain/contacts';
import type { UploadedFile } from './multipart';

export const IMAGE_MESSAGE = 'The image must be a JPEG or PNG file.';

/**
 * The image's real type, read from its first bytes: the declared content type and the file
 * name are the client's claims and prove nothing. Undefined when it is neither JPEG nor PNG.
 */
export async function sniffImage(file: UploadedFile): Promise<ContactImageInput | undefined> {
  const type = await fileTypeFromBuffer(file.bytes);
  if (type?.mime === 'image/jpeg' || type?.mime === 'image/png') return { contentType: type.mime, bytes: file.bytes };
  return undefined;
}
