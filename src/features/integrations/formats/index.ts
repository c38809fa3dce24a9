import type { IntegrationTarget, PlatformRequest } from '../integration.types.js';
import type { SubmissionMessage } from '../message.js';
import { formatDiscord } from './discord.js';
import { formatNtfy } from './ntfy.js';
import { formatSlack } from './slack.js';
import { formatTeams } from './teams.js';
import { formatTelegram } from './telegram.js';

/** The request that delivers `message` to one integration's platform. */
export function formatRequest(target: IntegrationTarget, message: SubmissionMessage, telegramApiUrl: string): PlatformRequest {
  switch (target.kind) {
    case 'slack':
      return formatSlack(target.url!, message);
    case 'discord':
      return formatDiscord(target.url!, message);
    case 'teams':
      return formatTeams(target.url!, message);
    case 'ntfy':
      return formatNtfy(target.url!, target.token, message);
    case 'telegram':
      return formatTelegram(telegramApiUrl, target.token!, target.chatId!, message);
  }
}
